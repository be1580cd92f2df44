#include "service/info_routes.hpp"

#include "service/json_response.hpp"
#include "service/stream_json.hpp"

namespace fp::service {

using nlohmann::json;

void add_info_routes(HttpServer& server, ServiceContext& context) {
  server.add_route("GET", "/v1/info", [&](const httplib::Request&, httplib::Response& res) {
    const auto info = context.manager.info();
    json by_state = json::object();
    int total = 0;
    for (const auto& [state, count] : info.streams_by_state) {
      by_state[state] = count;
      total += count;
    }
    json body = {{"version", context.version},
                 {"devices", context.devices},
                 {"capacity", info.capacity},
                 {"capacity_budget", capacity_json(info)},
                 {"learned_cores_per_mpps", info.learned_cores_per_mpps},
                 {"streams", total},
                 {"streams_by_state", by_state},
                 {"pipelines", context.manager.pipelines()},
                 {"default_pipeline", context.default_pipeline},
                 {"draining", context.is_draining()},
                 {"ready", info.ready && !context.is_draining()}};
    if (const auto list = context.stream_list ? context.stream_list() : std::nullopt) {
      body["shard"] = {{"ordinal", list->shard.ordinal}, {"replicas", list->shard.replicas}};
      body["stream_list"] = stream_list_json(*list);
    }
    send_json(res, 200, body);
  });

  server.add_route("GET", "/v1/pipelines", [&](const httplib::Request&, httplib::Response& res) {
    send_json(res, 200, {{"pipelines", context.manager.pipelines()}, {"default", context.default_pipeline}});
  });

  // Accepted at once; `framepipe serve` then drains every stream and exits.
  server.add_route("POST", "/v1/drain", [&](const httplib::Request&, httplib::Response& res) {
    context.draining = true;
    if (context.on_drain) context.on_drain();
    send_json(res, 202, {{"draining", true}});
  });
}

}  // namespace fp::service
