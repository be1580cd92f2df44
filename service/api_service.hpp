// Everything `framepipe serve` answers over HTTP, put together on one listener: the API
// (stream_routes, probe_routes, deepstream_routes) and the two hooks the other parts plug
// into — a metrics renderer for GET /metrics and the status page for GET / — plus a
// per-request observer (what the request metrics count).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pipeline/stream_list/list_sync.hpp"
#include "pipeline/streams/manager.hpp"
#include "service/http_server.hpp"
#include "service/service_context.hpp"

namespace fp::service {

struct ApiServiceOptions {
  HttpServerOptions http;
  // A second listener answering only /livez and /readyz, with workers of its own (serve
  // --probe-listen): what the API's clients do to the first cannot make the probes fail.
  std::optional<ListenAddress> probe_listen;
  std::string default_pipeline;      // PUT without "pipeline", DeepStream's add
  std::string version;               // GET /v1/info
  std::vector<std::string> devices;  // GET /v1/info
  std::function<std::string()> metrics;  // GET /metrics: Prometheus text format; unset: 404
  std::string page;                      // GET /: the status page (HTML; served without the token, with status_page_headers()); empty: 404
  HttpServer::RequestObserver on_request;
  std::function<void()> on_drain;    // POST /v1/drain was asked (after /readyz turned 503)
  // GET /v1/info's shard and stream_list; unset or nullopt: no --stream-list.
  std::function<std::optional<StreamListStatus>()> stream_list;
};

class ApiService {
 public:
  ApiService(StreamManager& manager, ApiServiceOptions options);
  // Binds and serves; the port (the one taken for port 0). Throws std::runtime_error.
  int start();
  // The probe listener's port once started; 0 without one.
  int probe_port() const { return probe_port_; }
  void stop();
  // The API listener's thread is serving (what /livez checks of HTTP).
  bool listening() const { return server_.running(); }
  // From now on /readyz says 503 and adds are refused with 503 "draining" (a signal's drain).
  void begin_drain();

 private:
  ApiServiceOptions options_;
  ServiceContext context_;
  HttpServer server_;
  std::unique_ptr<HttpServer> probe_server_;
  int probe_port_ = 0;
};

}  // namespace fp::service
