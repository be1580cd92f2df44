// `framepipe run --metrics ADDR`: a batch run has no API server, so /metrics gets a small
// listener of its own (serve answers /metrics on its one listener instead). Read-only, and
// the metrics hold no URI, path or credential, so an address other than loopback is allowed
// when the user names one; a bare port listens on loopback only.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "service/listen_address.hpp"
#include "service/metrics.hpp"

namespace httplib {
class Server;
}

namespace fp::service {

// "PORT" -> 127.0.0.1:PORT; otherwise as parse_listen_address. Throws std::invalid_argument
// "--metrics VALUE: REASON".
ListenAddress parse_metrics_address(const std::string& text);

class MetricsServer {
 public:
  // Listens before returning (throws std::runtime_error "--metrics ADDR: cannot listen" when
  // the address is taken or not this machine's) and answers on its own threads.
  MetricsServer(const ListenAddress& address, const Metrics& metrics);
  // Stops listening and joins its threads.
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }  // the one bound (address.port 0: a free one)

 private:
  std::unique_ptr<httplib::Server> server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace fp::service
