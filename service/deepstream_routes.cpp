#include "service/deepstream_routes.hpp"

#include <fmt/format.h>

#include "pipeline/stream_template.hpp"
#include "service/json_response.hpp"
#include "service/stream_json.hpp"
#include "service/stream_routes.hpp"

namespace fp::service {

namespace {

using nlohmann::json;

struct SensorChange {
  std::string camera_id;
  std::string camera_url;
  std::string change;
};

// DeepStream's body, checked key by key (the same 400s as PUT's, naming the key).
SensorChange parse_sensor_change(const std::string& body) {
  json parsed;
  try {
    parsed = json::parse(body);
  } catch (const json::parse_error& e) {
    throw HttpError(400, fmt::format("request body: not valid JSON (at byte {})", e.byte));
  }
  if (!parsed.is_object() || !parsed.contains("value") || !parsed["value"].is_object())
    throw HttpError(400, "value: missing (DeepStream's body: {\"key\": \"sensor\", \"value\": {\"camera_id\", "
                         "\"camera_url\", \"change\"}})");
  const auto& value = parsed["value"];
  const auto text = [&](const char* key, bool required) -> std::string {
    if (!value.contains(key)) {
      if (required) throw HttpError(400, fmt::format("value.{}: missing", key));
      return "";
    }
    if (!value[key].is_string())
      throw HttpError(400, fmt::format("value.{}: expected a string, got {}", key, value[key].type_name()));
    return value[key].get<std::string>();
  };
  return {text("camera_id", true), text("camera_url", false), text("change", false)};
}

}  // namespace

void add_deepstream_routes(HttpServer& server, ServiceContext& context) {
  server.add_route("POST", "/api/v1/stream/add", [&](const httplib::Request& req, httplib::Response& res) {
    const auto sensor = parse_sensor_change(req.body);
    if (!sensor.change.empty() && sensor.change != "camera_add" && sensor.change != "camera_streaming")
      throw HttpError(400, fmt::format("value.change: '{}' on stream/add (expected camera_add)", sensor.change));
    if (sensor.camera_url.empty()) throw HttpError(400, "value.camera_url: missing");
    check_stream_name(sensor.camera_id);
    StreamSpec spec;
    spec.name = sensor.camera_id;
    spec.pipeline = context.default_pipeline;
    spec.uri = sensor.camera_url;
    int status = 0;
    json stream = put_stream(context, spec, status);
    // DeepStream answers {"status": "HTTP/1.1 200 OK", "reason": "STREAM_ADD_SUCCESS"}.
    send_json(res, 200, {{"status", "HTTP/1.1 200 OK"}, {"reason", "STREAM_ADD_SUCCESS"}, {"stream", stream}});
  });

  server.add_route("POST", "/api/v1/stream/remove", [&](const httplib::Request& req, httplib::Response& res) {
    const auto sensor = parse_sensor_change(req.body);
    if (!sensor.change.empty() && sensor.change != "camera_remove")
      throw HttpError(400, fmt::format("value.change: '{}' on stream/remove (expected camera_remove)", sensor.change));
    check_stream_name(sensor.camera_id);
    if (!context.manager.remove(sensor.camera_id))
      throw HttpError(404, fmt::format("no stream named {}", sensor.camera_id));
    send_json(res, 200, {{"status", "HTTP/1.1 200 OK"}, {"reason", "STREAM_REMOVE_SUCCESS"}});
  });
}

}  // namespace fp::service
