// `framepipe run --metrics ADDR`: a batch run has no API server, so /metrics gets a listener
// of its own (the same guarded HttpServer as serve's, with the one route; serve answers
// /metrics on its one listener instead). Read-only, and
// the metrics hold no URI, path or credential, so an address other than loopback is allowed
// when the user names one; a bare port listens on loopback only.
#pragma once

#include <string>

#include "service/http_server.hpp"
#include "service/listen_address.hpp"
#include "service/metrics.hpp"

namespace fp::service {

// "PORT" -> 127.0.0.1:PORT; otherwise as parse_listen_address. Throws std::invalid_argument
// "--metrics VALUE: REASON".
ListenAddress parse_metrics_address(const std::string& text);

class MetricsServer {
 public:
  // Listens before returning (throws std::runtime_error "--metrics: cannot listen on ADDRESS:
  // REASON" when the address is taken or not this machine's) and answers on its own threads.
  // `metrics` outlives the server.
  MetricsServer(const ListenAddress& address, Metrics& metrics);
  // Stops listening and waits for the requests being answered (each is bounded).
  ~MetricsServer() = default;
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  int port() const { return port_; }  // the one bound (address.port 0: a free one)

 private:
  HttpServer server_;
  int port_ = 0;
};

}  // namespace fp::service
