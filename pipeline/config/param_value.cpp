#include "pipeline/config/param_value.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "core/printable_text.hpp"
#include "pipeline/config/yaml.hpp"

namespace fp {

namespace {

// std::from_chars rather than yaml-cpp's conversions: those read "010" as octal and take
// whatever a stream accepts; a parameter is plain decimal.
std::string_view without_plus(const std::string& text) {
  std::string_view view = text;
  if (view.size() > 1 && view.front() == '+' && view[1] != '-') view.remove_prefix(1);
  return view;
}

std::optional<std::int64_t> parse_integer(const std::string& text) {
  const std::string_view view = without_plus(text);
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec != std::errc() || end != view.data() + view.size() || view.empty()) return std::nullopt;
  return value;
}

std::optional<double> parse_real(const std::string& text) {
  const std::string_view view = without_plus(text);
  double value = 0;
  const auto [end, ec] = std::from_chars(view.data(), view.data() + view.size(), value);
  if (ec != std::errc() || end != view.data() + view.size() || view.empty() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

bool is_keyword(const ParamSpec& spec, const std::string& text) {
  return std::find(spec.keywords.begin(), spec.keywords.end(), text) != spec.keywords.end();
}

ConvertedParam fail(std::string error, std::optional<std::size_t> element = std::nullopt) {
  return {std::nullopt, std::move(error), element};
}

ConvertedParam convert_int(const ParamSpec& spec, const YAML::Node& node) {
  const auto text = scalar_text(node);
  if (text && is_keyword(spec, *text)) return {ParamValue{*text}};
  const auto value = text ? parse_integer(*text) : std::nullopt;
  if (!value) {
    const std::string words = spec.keywords.empty() ? "" : fmt::format(" or {}", fmt::join(spec.keywords, "|"));
    return fail("must be an integer" + words + " (got " + describe_node(node) + ")");
  }
  if (auto error = range_error(spec.range, static_cast<double>(*value), *text); !error.empty()) return fail(error);
  if (spec.odd && *value % 2 == 0) return fail("must be odd (got " + *text + ")");
  return {ParamValue{*value}};
}

ConvertedParam convert_float(const ParamSpec& spec, const YAML::Node& node) {
  const auto text = scalar_text(node);
  const auto value = text ? parse_real(*text) : std::nullopt;
  if (!value) return fail("must be a number (got " + describe_node(node) + ")");
  if (auto error = range_error(spec.range, *value, *text); !error.empty()) return fail(error);
  return {ParamValue{*value}};
}

// Every text parameter is a path or a URI: none may hold a control character (a NUL would
// end it at the open, so that the path checked is not the path opened).
ConvertedParam convert_text(const YAML::Node& node) {
  const auto text = scalar_text(node);
  if (!text) return fail("must be a string (got " + describe_node(node) + ")");
  if (const auto problem = control_character_problem(*text)) return fail("must be a path or URI: it " + *problem);
  return {ParamValue{*text}};
}

ConvertedParam convert_enum(const ParamSpec& spec, const YAML::Node& node) {
  const auto text = scalar_text(node);
  if (!text || !is_keyword(spec, *text))
    return fail(fmt::format("must be one of {} (got {})", fmt::join(spec.keywords, "|"), describe_node(node)));
  return {ParamValue{*text}};
}

ConvertedParam convert_list(const ParamSpec& spec, const YAML::Node& node) {
  if (!node.IsSequence()) return fail("must be a list of numbers (got " + describe_node(node) + ")");
  std::vector<double> values;
  for (std::size_t k = 0; k < node.size(); ++k) {
    const YAML::Node element = node[k];
    const auto text = scalar_text(element);
    const auto value = text ? parse_real(*text) : std::nullopt;
    if (!value) return fail("must be a number (got " + describe_node(element) + ")", k);
    if (auto error = range_error(spec.range, *value, *text); !error.empty()) return fail(error, k);
    values.push_back(*value);
  }
  return {ParamValue{std::move(values)}};
}

}  // namespace

std::string range_error(const ParamRange& range, double value, const std::string& written) {
  const bool below = range.min && (range.min_exclusive ? value <= *range.min : value < *range.min);
  const bool above = range.max && value > *range.max;
  if (!below && !above) return "";
  // A closed interval reads best whole; otherwise name the bound that was crossed, since
  // "(0, 1000]" is easy to misread and "must be > 0" is what the user needs to know.
  if (range.min && range.max && !range.min_exclusive)
    return fmt::format("must be in [{}, {}] (got {})", *range.min, *range.max, written);
  if (below) return fmt::format("must be {} {} (got {})", range.min_exclusive ? ">" : ">=", *range.min, written);
  return fmt::format("must be <= {} (got {})", *range.max, written);
}

ConvertedParam convert_param(const ParamSpec& spec, const YAML::Node& node) {
  switch (spec.type) {
    case ParamType::Int: return convert_int(spec, node);
    case ParamType::Float: return convert_float(spec, node);
    case ParamType::String:
    case ParamType::Path: return convert_text(node);
    case ParamType::Enum: return convert_enum(spec, node);
    case ParamType::FloatList: return convert_list(spec, node);
  }
  return fail("has a type this version cannot read");
}

}  // namespace fp
