#include "service/metrics_server.hpp"

#include <httplib.h>

#include <stdexcept>

namespace fp::service {

ListenAddress parse_metrics_address(const std::string& text) {
  const bool bare_port = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  const std::string address = bare_port ? "127.0.0.1:" + text : text;
  try {
    return parse_listen_address(address);
  } catch (const std::invalid_argument& e) {
    // parse_listen_address says "--listen ADDRESS: REASON"; this option is --metrics, as typed.
    std::string message = e.what();
    const std::string prefix = "--listen " + address;
    if (message.rfind(prefix, 0) == 0) message = "--metrics " + text + message.substr(prefix.size());
    throw std::invalid_argument(message);
  }
}

MetricsServer::MetricsServer(const ListenAddress& address, const Metrics& metrics)
    : server_(std::make_unique<httplib::Server>()) {
  // A scraper that stalls must not hold a thread for long.
  server_->set_read_timeout(5, 0);
  server_->set_write_timeout(5, 0);
  server_->Get("/metrics", [&metrics](const httplib::Request&, httplib::Response& response) {
    response.set_content(metrics.scrape(), Metrics::kContentType);
  });
  port_ = address.port == 0 ? server_->bind_to_any_port(address.host) : address.port;
  if (port_ <= 0 || (address.port != 0 && !server_->bind_to_port(address.host, address.port)))
    throw std::runtime_error("--metrics " + address.to_string() + ": cannot listen (address in use, or not this machine's)");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
}

MetricsServer::~MetricsServer() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace fp::service
