#include "service/api_service.hpp"

#include "service/deepstream_routes.hpp"
#include "service/info_routes.hpp"
#include "service/json_response.hpp"
#include "service/probe_routes.hpp"
#include "service/status_page.hpp"
#include "service/stream_routes.hpp"

namespace fp::service {

ApiService::ApiService(StreamManager& manager, ApiServiceOptions options)
    : options_(std::move(options)),
      context_{.manager = manager, .default_pipeline = options_.default_pipeline, .version = options_.version,
               .devices = options_.devices, .draining = {}, .on_drain = options_.on_drain, .http_alive = {},
               .stream_list = options_.stream_list},
      server_(options_.http) {
  context_.http_alive = [this] { return server_.running(); };
  add_stream_routes(server_, context_);
  add_probe_routes(server_, context_);
  add_info_routes(server_, context_);
  if (options_.probe_listen) {
    HttpServerOptions probe_options;
    probe_options.listen = *options_.probe_listen;
    probe_server_ = std::make_unique<HttpServer>(std::move(probe_options));
    add_probe_routes(*probe_server_, context_);
    if (options_.on_request) probe_server_->on_request(options_.on_request);
  }
  add_deepstream_routes(server_, context_);
  if (options_.metrics)
    server_.add_route("GET", "/metrics", [this](const httplib::Request&, httplib::Response& res) {
      res.status = 200;
      res.set_content(options_.metrics(), "text/plain; version=0.0.4; charset=utf-8");
    });
  if (!options_.page.empty())
    server_.add_route("GET", "/", [this](const httplib::Request&, httplib::Response& res) {
      res.status = 200;
      for (const auto& header : status_page_headers()) res.set_header(std::string(header.name), std::string(header.value));
      res.set_content(options_.page, std::string(kStatusPageContentType));
    });
  if (options_.on_request) server_.on_request(options_.on_request);
}

int ApiService::start() {
  int port = 0;
  try {
    port = server_.start();
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("--listen: ") + e.what());  // the option to change, as --probe-listen's
  }
  if (probe_server_) {
    try {
      probe_port_ = probe_server_->start();
    } catch (const std::runtime_error& e) {
      server_.stop();
      throw std::runtime_error(std::string("--probe-listen: ") + e.what());
    }
  }
  return port;
}

void ApiService::stop() {
  if (probe_server_) probe_server_->stop();
  server_.stop();
}
void ApiService::begin_drain() { context_.draining = true; }

}  // namespace fp::service
