#include "service/stream_routes.hpp"

#include <fmt/format.h>

#include "pipeline/streams/template.hpp"
#include "service/json_response.hpp"
#include "service/snapshot_jpeg.hpp"
#include "service/stream_json.hpp"

namespace fp::service {

namespace {

using nlohmann::json;

// How long a snapshot waits for the node's next frame: a stream at a few fps gives one.
constexpr std::chrono::milliseconds kSnapshotWait{3000};

std::string name_of(const httplib::Request& req) {
  std::string name = req.matches[1];
  check_stream_name(name);
  return name;
}

json status_or_404(StreamManager& manager, const std::string& name) {
  const auto status = manager.get(name);
  if (!status) throw HttpError(404, fmt::format("no stream named {}", name));
  return stream_json(*status);
}

}  // namespace

// A PUT, whatever route it came by (the DeepStream add too): refused while draining, the
// capacity refusal with its number, the stream as it now is.
json put_stream(ServiceContext& context, const StreamSpec& spec, int& status) {
  if (context.is_draining()) throw HttpError(503, "draining");
  try {
    const auto outcome = context.manager.put(spec);
    status = outcome == StreamManager::PutOutcome::Created ? 201 : 200;
  } catch (const CapacityRejected& e) {
    // The resource that has no room, what the budget has of it and what the streams use.
    const std::string& resource = e.resource();
    const ManagerInfo info = context.manager.info();
    const json capacity = capacity_json(info);
    throw HttpError(503, "capacity",
                    {{"resource", resource},
                     {"max_streams", info.capacity},
                     {"budget", capacity["budget"].value(resource, json(nullptr))},
                     {"used", capacity["used"].value(resource, json(nullptr))}});
  }
  if (const auto now = context.manager.get(spec.name)) return stream_json(*now);
  return {{"name", spec.name}};  // already gone again (a file input that ended at once)
}

void add_stream_routes(HttpServer& server, ServiceContext& context) {
  server.add_route("GET", "/v1/streams", [&](const httplib::Request&, httplib::Response& res) {
    json streams = json::array();
    for (const auto& status : context.manager.list()) streams.push_back(stream_json(status));
    send_json(res, 200, {{"streams", streams}});
  });

  server.add_route("PUT", "/v1/streams/{name}", [&](const httplib::Request& req, httplib::Response& res) {
    const auto name = name_of(req);
    const auto spec = stream_spec_from_json(name, req.body, context.default_pipeline);
    int status = 0;
    const json body = put_stream(context, spec, status);
    send_json(res, status, body);
  });

  server.add_route("GET", "/v1/streams/{name}", [&](const httplib::Request& req, httplib::Response& res) {
    send_json(res, 200, status_or_404(context.manager, name_of(req)));
  });

  server.add_route("DELETE", "/v1/streams/{name}", [&](const httplib::Request& req, httplib::Response& res) {
    const auto name = name_of(req);
    if (!context.manager.remove(name)) throw HttpError(404, fmt::format("no stream named {}", name));
    // Accepted: the stream finalizes its outputs on its own thread.
    send_json(res, 202, {{"name", name}, {"state", "draining"}});
  });

  server.add_route("GET", "/v1/streams/{name}/snapshot.jpg", [&](const httplib::Request& req, httplib::Response& res) {
    const auto name = name_of(req);
    const std::string node = req.has_param("node") ? req.get_param_value("node") : "";
    // The frame is downloaded by the graph's thread alongside its work and encoded here, on
    // this HTTP worker: the stream never waits for the JPEG.
    const auto frame = context.manager.frame(name, node, kSnapshotWait);
    if (!frame)
      throw HttpError(503, fmt::format("stream {}: no frame{} within {} ms", name,
                                       node.empty() ? "" : " from node " + node, kSnapshotWait.count()));
    res.status = 200;
    res.set_header("Cache-Control", "no-store");
    // Which frame it is (0, 1, 2 ... in the input's decode order): a client polling snapshots
    // tells a new one from one it has, and a test that it is the newest.
    res.set_header("X-Frame-Sequence", std::to_string(frame->sequence));
    res.set_content(snapshot_jpeg(*frame), "image/jpeg");
  });
}

}  // namespace fp::service
