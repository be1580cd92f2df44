#include "service/stream_json.hpp"

#include <fmt/format.h>

#include <cmath>
#include <ctime>

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
      {"cpu_cores", s.cpu_cores},
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

StreamSpec stream_spec_from_json(const std::string& name, const std::string& body, const std::string& default_pipeline) {
  const json parsed = parse_client_json(body);
  if (!parsed.is_object()) throw HttpError(400, fmt::format("request body: expected a JSON object, got {}", parsed.type_name()));
  const JsonSpecFields fields(parsed, JsonSpecFields::Strings::AreValues, [](const std::string& path, const std::string& what) {
    throw HttpError(400, path.empty() ? what : fmt::format("{}: {}", path, what));
  });
  return read_stream_spec(fields, {.name = name, .default_pipeline = default_pipeline, .own_keys = {}});
}

nlohmann::json capacity_json(const ManagerInfo& info) {
  nlohmann::json budget = nlohmann::json::object();
  nlohmann::json used = nlohmann::json::object();
  for (const CapacityResource resource : kCapacityResources) {
    const double have = info.budget.of(resource);
    budget[capacity_resource_name(resource)] = std::isinf(have) ? nlohmann::json(nullptr) : nlohmann::json(have);
    used[capacity_resource_name(resource)] = info.used.of(resource);
  }
  return {{"budget", budget}, {"used", used}};
}

}  // namespace fp::service
