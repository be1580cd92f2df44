#include "service/stream_json.hpp"

#include <fmt/format.h>

#include <ctime>
#include <string_view>

#include "core/printable_text.hpp"
#include "media/stream_uri.hpp"
#include "service/client_json.hpp"
#include "service/json_response.hpp"

namespace fp::service {

using nlohmann::json;

std::string iso8601_utc(std::chrono::system_clock::time_point time) {
  if (time == std::chrono::system_clock::time_point{}) return "";
  const auto seconds = std::chrono::time_point_cast<std::chrono::seconds>(time);
  const auto millis = std::chrono::duration_cast<std::chrono::milliseconds>(time - seconds).count();
  const std::time_t t = std::chrono::system_clock::to_time_t(seconds);
  std::tm utc{};
  gmtime_r(&t, &utc);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  return fmt::format("{}.{:03}Z", text, millis);
}

json stream_json(const StreamStatus& s) {
  json outputs = json::array();
  for (const auto& output : s.outputs) outputs.push_back(mask_credentials(output));
  return {
      {"name", s.name},
      {"pipeline", s.pipeline},
      // The manager masks it already; masked again here so that no path to a client skips it.
      {"uri", mask_credentials(s.uri)},
      {"source", stream_source_name(s.source)},
      {"state", stream_state_name(s.state)},
      {"since", iso8601_utc(s.since)},
      {"frames", s.frames},
      {"fps", s.fps},
      {"dropped", s.dropped},
      {"latency",
       {{"p50_ms", s.latency_p50_ms},
        {"p99_ms", s.latency_p99_ms},
        {"recent",
         {{"p50_ms", s.latency_recent_p50_ms},
          {"p99_ms", s.latency_recent_p99_ms},
          {"seconds", s.latency_recent_seconds}}}}},
      {"reconnects", s.reconnects},
      // A live stream that failed is started again after a growing wait: how often so far,
      // and while it waits, when next (null otherwise) and the wait chosen.
      {"restarts", s.restarts},
      {"next_restart", s.next_restart == std::chrono::system_clock::time_point{} ? json(nullptr)
                                                                                 : json(iso8601_utc(s.next_restart))},
      {"restart_wait_s", s.next_restart == std::chrono::system_clock::time_point{}
                             ? json(nullptr)
                             : json(std::chrono::duration<double>(s.restart_wait).count())},
      {"last_error", s.last_error.empty() ? json(nullptr) : json(mask_uris_in_text(s.last_error))},
      {"outputs", outputs},
  };
}

namespace {

// A word YAML reads back as the same string when written plain: it starts with a letter, '_'
// or '/', goes on with letters, digits and _./:-, does not end with ':' and is none of YAML's
// reserved words. A loop,
// not a regex: std::regex recurses once per character, and this text is the client's.
bool is_plain_yaml_word(std::string_view text) {
  const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (text.empty() || !(letter(text[0]) || text[0] == '_' || text[0] == '/')) return false;
  for (const char c : text)
    if (!(letter(c) || digit(c) || c == '_' || c == '.' || c == '/' || c == ':' || c == '-')) return false;
  // A ':' at the end makes YAML read a map ("cuda:" is {cuda: null}); inside, as in cuda:0,
  // it is text. (Found by fuzz_stream_spec_json; the regex before this had the same hole.)
  if (text.back() == ':') return false;
  static constexpr std::string_view reserved[] = {"true", "false", "yes", "no", "on", "off", "null"};
  for (const auto word : reserved) {
    if (word.size() != text.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < word.size() && same; ++i)
      same = (text[i] | 0x20) == word[i];  // ASCII letters only here: | 0x20 lowers them
    if (same) return false;
  }
  return true;
}

}  // namespace

std::string yaml_text(const json& value) {
  // A plain word stays plain (max_energy, cuda:0); anything YAML could read otherwise is
  // quoted, and a JSON string is also a YAML double-quoted string.
  if (value.is_string() && is_plain_yaml_word(value.get_ref<const std::string&>()))
    return value.get<std::string>();
  // Numbers, booleans, arrays and objects: JSON is YAML's flow style. Client values reach
  // here only through parse_client_json, so their nesting (dump() recurses) is bounded.
  return value.dump();
}

json stream_list_json(const StreamListStatus& list) {
  json rejected = json::object();
  for (const auto& [name, why] : list.rejected) rejected[name] = mask_uris_in_text(why);
  return {{"path", list.path.string()},
          {"listed", list.listed},
          {"assigned", list.assigned},
          {"rejected", rejected},
          {"error", list.error.empty() ? json(nullptr) : json(mask_uris_in_text(list.error))},
          {"read_at", iso8601_utc(list.read_at)},
          {"reads_ok", list.reads_ok},
          {"reads_failed", list.reads_failed}};
}

namespace {

std::map<std::string, std::string> yaml_map(const json& body, const std::string& key) {
  const auto& object = body.at(key);
  if (!object.is_object())
    throw HttpError(400, fmt::format("{}: expected an object of {} -> value, got {}", key,
                                     key == "set" ? "STAGE.PARAM" : "PARAM", object.type_name()));
  if (object.size() > kMaxMapEntries)
    throw HttpError(400, fmt::format("{}: {} entries, more than the {} allowed", key, object.size(), kMaxMapEntries));
  std::map<std::string, std::string> values;
  for (const auto& [name, value] : object.items()) {
    check_field_length(fmt::format("{} key", key), name, kMaxNameBytes);
    if (value.is_null() || value.is_object())
      throw HttpError(400, fmt::format("{}.{}: expected a number, string, boolean or list, got {}", key, printable_text(name),
                                       value.type_name()));
    auto text = yaml_text(value);
    check_field_length(fmt::format("{}.{}", key, printable_text(name)), text, kMaxValueBytes);
    values[name] = std::move(text);
  }
  return values;
}

}  // namespace

StreamSpec stream_spec_from_json(const std::string& name, const std::string& body, const std::string& default_pipeline) {
  const json parsed = parse_client_json(body);
  if (!parsed.is_object()) throw HttpError(400, fmt::format("request body: expected a JSON object, got {}", parsed.type_name()));
  for (const auto& [key, value] : parsed.items())
    if (key != "pipeline" && key != "uri" && key != "set" && key != "decode") {
      check_field_length("a key of the request body", key, kMaxNameBytes);
      throw HttpError(400, fmt::format("{}: unknown key (expected pipeline, uri, set, decode)", printable_text(key)));
    }
  StreamSpec spec;
  spec.name = name;
  spec.pipeline = default_pipeline;
  if (parsed.contains("pipeline")) spec.pipeline = string_field(parsed, "", "pipeline", true, kMaxNameBytes);
  if (!parsed.contains("uri")) throw HttpError(400, "uri: missing (the stream's input: rtsp://..., testsrc://...)");
  spec.uri = string_field(parsed, "", "uri", true, kMaxUriBytes);
  if (spec.uri.empty()) throw HttpError(400, "uri: empty");
  if (parsed.contains("set")) spec.sets = yaml_map(parsed, "set");
  if (parsed.contains("decode")) spec.decode = yaml_map(parsed, "decode");
  return spec;
}

}  // namespace fp::service
