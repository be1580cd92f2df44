// An httplib::Server that a slow or hostile client cannot take down. httplib 0.11 bounds each
// read of a request by its read timeout but not the request as a whole: a client that sends
// its headers a byte a second holds a worker for ever, and a few such clients hold them all.
// This server reads each connection itself (process_and_close_socket, its one hook for it)
// with a deadline for the whole request, a shorter wait for an idle keep-alive connection,
// a cap on the requests one connection may make, and a bounded worker pool whose overflow
// is answered 503 at once.
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>

namespace fp::service {

struct ConnectionLimits {
  std::size_t workers = 32;                     // connections served at once
  std::size_t queue = 128;                      // accepted connections waiting for a worker; more: 503
  std::chrono::milliseconds idle{2000};         // a connection may wait this long before (each) request
  std::chrono::milliseconds request{10000};     // from a request's first byte to its last byte read
  std::chrono::milliseconds write{5000};        // each write of the answer
  std::size_t requests_per_connection = 100;    // then the connection is closed (keep-alive cap)
};

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits);

 private:
  // httplib's hook for one accepted connection (private virtual in httplib: overridden here).
  bool process_and_close_socket(socket_t sock) override;
  ConnectionLimits limits_;
};

}  // namespace fp::service
