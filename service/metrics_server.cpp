#include "service/metrics_server.hpp"

#include <httplib.h>

#include <string>
#include <stdexcept>

namespace fp::service {

ListenAddress parse_metrics_address(const std::string& text) {
  const bool bare_port = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  const std::string address = bare_port ? "127.0.0.1:" + text : text;
  // A bare port is named as typed: "--metrics 9100: ..." rather than the address made of it.
  try {
    return parse_listen_address(address, "--metrics");
  } catch (const std::invalid_argument&) {
    if (!bare_port) throw;
    throw std::invalid_argument("--metrics " + text + ": the port must be a number from 0 to 65535");
  }
}

namespace {
HttpServerOptions options_for(const ListenAddress& address) {
  HttpServerOptions options;
  options.listen = address;
  return options;  // no token: the metrics are read-only and hold nothing secret
}
}  // namespace

MetricsServer::MetricsServer(const ListenAddress& address, Metrics& metrics) : server_(options_for(address)) {
  server_.add_route("GET", "/metrics", [&metrics](const httplib::Request&, httplib::Response& response) {
    response.set_content(metrics.scrape(), Metrics::kContentType);
  });
  server_.on_request([&metrics](const std::string& route, int status) { metrics.count_request(route, status); });
  try {
    port_ = server_.start();
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(std::string("--metrics: ") + e.what());
  }
}

}  // namespace fp::service
