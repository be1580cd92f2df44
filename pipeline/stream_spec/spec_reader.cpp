#include "pipeline/stream_spec/spec_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/printable_text.hpp"

namespace fp {

std::string_view field_kind_words(FieldKind kind) {
  switch (kind) {
    case FieldKind::Absent:
    case FieldKind::Null: return "nothing";
    case FieldKind::Text: return "a string";
    case FieldKind::Number: return "a number";
    case FieldKind::Boolean: return "a boolean";
    case FieldKind::List: return "a list";
    case FieldKind::Map: return "a map";
  }
  return "nothing";
}

namespace {

constexpr std::string_view kSpecKeys[] = {"name", "uri", "pipeline", "set", "decode"};

void check_length(const SpecFields& fields, const std::string& path, std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes)
    fields.fail(path, fmt::format("{} bytes, longer than the {} allowed", text.size(), max_bytes));
}

// Every key known, none too long to quote. The message lists the keys this format takes.
void check_keys(const SpecFields& fields, const SpecReading& reading) {
  std::vector<std::string> known;
  for (const auto key : kSpecKeys)
    if (key != "name" || !reading.name) known.emplace_back(key);
  known.insert(known.end(), reading.own_keys.begin(), reading.own_keys.end());
  for (const auto& key : fields.keys()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    if (key.size() > kMaxNameBytes)
      fields.fail("", fmt::format("a key of {} bytes, longer than the {} allowed", key.size(), kMaxNameBytes));
    fields.fail(printable_text(key), fmt::format("unknown key (expected {})", fmt::join(known, ", ")));
  }
}

void check_control_characters(const SpecFields& fields, const SpecReading& reading, const std::string& path,
                              std::string_view text) {
  if (!reading.refuse_control_characters) return;
  if (const auto problem = control_character_problem(text)) fields.fail(path, *problem);
}

// A text field: "" when absent and not needed.
std::string text_field(const SpecFields& fields, const SpecReading& reading, const std::string& key, bool needed,
                       std::size_t max_bytes) {
  const FieldKind kind = fields.kind(key);
  if (kind == FieldKind::Absent) {
    if (needed) fields.fail(key, "missing");
    return "";
  }
  if (kind != FieldKind::Text) fields.fail(key, fmt::format("expected a string, got {}", field_kind_words(kind)));
  std::string text = fields.text(key);
  check_length(fields, key, text, max_bytes);
  check_control_characters(fields, reading, key, text);
  if (text.empty()) fields.fail(key, "empty");
  return text;
}

std::map<std::string, std::string> parameters(const SpecFields& fields, const SpecReading& reading,
                                              const std::string& key) {
  std::map<std::string, std::string> values;
  const FieldKind kind = fields.kind(key);
  if (kind == FieldKind::Absent || kind == FieldKind::Null) return values;
  if (kind != FieldKind::Map)
    fields.fail(key, fmt::format("expected a map of {} -> value, got {}", key == "set" ? "STAGE.PARAM" : "PARAM",
                                 field_kind_words(kind)));
  if (const std::size_t size = fields.size(key); size > kMaxMapEntries)
    fields.fail(key, fmt::format("{} entries, more than the {} allowed", size, kMaxMapEntries));
  for (auto& entry : fields.entries(key)) {
    check_length(fields, key + " key", entry.name, kMaxNameBytes);
    check_control_characters(fields, reading, key + " key", entry.name);
    const std::string path = fmt::format("{}.{}", key, printable_text(entry.name));
    if (entry.kind == FieldKind::Null || entry.kind == FieldKind::Map || entry.kind == FieldKind::Absent)
      fields.fail(path, fmt::format("expected a number, text, boolean or list, got {}", field_kind_words(entry.kind)));
    check_length(fields, path, entry.yaml_text, kMaxValueBytes);
    if (reading.refuse_control_characters && entry.control_character) fields.fail(path, *entry.control_character);
    values[std::move(entry.name)] = std::move(entry.yaml_text);
  }
  return values;
}

}  // namespace

StreamSpec read_stream_spec(const SpecFields& fields, const SpecReading& reading) {
  check_keys(fields, reading);
  StreamSpec spec;
  if (reading.name) {
    spec.name = *reading.name;  // checked where it was taken (the API's route, before the body)
  } else {
    spec.name = text_field(fields, reading, "name", true, kMaxNameBytes);
    try {
      check_stream_name(spec.name);
    } catch (const StreamRejected& e) {
      fields.fail("name", e.what());
    }
  }
  spec.uri = text_field(fields, reading, "uri", true, kMaxUriBytes);
  spec.pipeline = text_field(fields, reading, "pipeline", reading.default_pipeline.empty(), kMaxNameBytes);
  if (spec.pipeline.empty()) spec.pipeline = reading.default_pipeline;
  spec.sets = parameters(fields, reading, "set");
  spec.decode = parameters(fields, reading, "decode");
  return spec;
}

}  // namespace fp
