#include "stages/param.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace fp {

const ParamValue& StageParams::get(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::out_of_range("parameter '" + name + "' has no value");
  return it->second;
}

std::int64_t StageParams::integer(const std::string& name) const {
  const auto& v = get(name);
  if (const auto* i = std::get_if<std::int64_t>(&v)) return *i;
  throw std::logic_error("parameter '" + name + "' is not an integer");
}

double StageParams::real(const std::string& name) const {
  const auto& v = get(name);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  throw std::logic_error("parameter '" + name + "' is not a number");
}

const std::string& StageParams::text(const std::string& name) const {
  const auto& v = get(name);
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  throw std::logic_error("parameter '" + name + "' is not text");
}

const std::vector<double>& StageParams::list(const std::string& name) const {
  const auto& v = get(name);
  if (const auto* l = std::get_if<std::vector<double>>(&v)) return *l;
  throw std::logic_error("parameter '" + name + "' is not a list");
}

bool StageParams::is_keyword(const std::string& name) const {
  return std::holds_alternative<std::string>(get(name));
}

std::string type_name(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::Int: return spec.keywords.empty() ? "int" : "int|" + fmt::format("{}", fmt::join(spec.keywords, "|"));
    case ParamType::Float: return "float";
    case ParamType::String: return "string";
    case ParamType::Path: return "path";
    case ParamType::Enum: return "enum";
    case ParamType::FloatList: return "list of float";
  }
  return "?";
}

std::string format_value(const ParamValue& value) {
  struct Visitor {
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return fmt::format("{}", d); }
    std::string operator()(const std::string& s) const { return s.empty() ? "\"\"" : s; }
    std::string operator()(const std::vector<double>& l) const { return fmt::format("[{}]", fmt::join(l, ", ")); }
  };
  return std::visit(Visitor{}, value);
}

std::string describe_range(const ParamSpec& spec) {
  if (spec.type == ParamType::Enum) return fmt::format("{}", fmt::join(spec.keywords, "|"));
  std::string out;
  if (spec.odd) out = "odd";
  const auto& r = spec.range;
  std::string bounds;
  if (r.min && r.max) {
    bounds = fmt::format("{}{}, {}]", r.min_exclusive ? "(" : "[", *r.min, *r.max);
  } else if (r.min) {
    bounds = fmt::format("{} {}", r.min_exclusive ? ">" : ">=", *r.min);
  } else if (r.max) {
    bounds = fmt::format("<= {}", *r.max);
  }
  if (!bounds.empty()) out += (out.empty() ? "" : ", ") + bounds;
  if (spec.type == ParamType::Int && !spec.keywords.empty())
    out += (out.empty() ? "" : " or ") + fmt::format("{}", fmt::join(spec.keywords, "|"));
  if (spec.cuda_max) out += fmt::format("; cuda <= {}", *spec.cuda_max);
  return out;
}

}  // namespace fp
