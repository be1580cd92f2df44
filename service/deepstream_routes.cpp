#include "service/deepstream_routes.hpp"

#include <fmt/format.h>

#include "pipeline/streams/template.hpp"
#include "service/client_json.hpp"
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
  const json parsed = parse_client_json(body);
  if (!parsed.is_object() || !parsed.contains("value") || !parsed["value"].is_object())
    throw HttpError(400, "value: missing (DeepStream's body: {\"key\": \"sensor\", \"value\": {\"camera_id\", "
                         "\"camera_url\", \"change\"}})");
  const auto& value = parsed["value"];
  // camera_id is checked as a stream name after this (1 to 64 characters); the bound here only
  // keeps a megabyte of it from being copied first.
  return {string_field(value, "value.", "camera_id", true, kMaxNameBytes),
          string_field(value, "value.", "camera_url", false, kMaxUriBytes),
          string_field(value, "value.", "change", false, kMaxNameBytes)};
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
