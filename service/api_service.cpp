#include "service/api_service.hpp"

#include "service/deepstream_routes.hpp"
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

int ApiService::start() { return server_.start(); }
void ApiService::stop() { server_.stop(); }
void ApiService::begin_drain() { context_.draining = true; }

}  // namespace fp::service
