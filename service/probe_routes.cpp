#include "service/probe_routes.hpp"

#include "service/json_response.hpp"

namespace fp::service {

using nlohmann::json;

void add_probe_routes(HttpServer& server, ServiceContext& context) {
  // Alive: this worker answers (so the listener hands out connections) and every stream's
  // executor and the manager's supervisor have published lately. Not alive means "restart me".
  server.add_probe(
      "/livez",
      [&](const httplib::Request&, httplib::Response& res) {
        if (context.http_alive && !context.http_alive()) return send_error(res, 503, "the HTTP listener is not serving");
        if (!context.manager.alive())
          return send_error(res, 503, "a stream's executor or the stream manager stopped answering");
        send_json(res, 200, {{"status", "alive"}});
      });

  // Ready: started, devices up, not draining. A camera that is down or reconnecting, or a
  // full house, does not make the process unready: one dead camera must not stall a rollout.
  server.add_probe(
      "/readyz",
      [&](const httplib::Request&, httplib::Response& res) {
        if (context.is_draining()) return send_error(res, 503, "draining");
        if (!context.manager.ready()) return send_error(res, 503, "not ready");
        send_json(res, 200, {{"status", "ready"}});
      });
}

}  // namespace fp::service
