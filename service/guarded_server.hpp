// An httplib::Server that a slow, greedy or hostile client cannot take down. httplib 0.11
// bounds each read of a request by its read timeout but not the request as a whole, reads a
// chunked body of any size, and keeps no count of headers: so this server reads each
// connection itself (process_and_close_socket, its one hook for it) with
//   - a deadline for the whole request, a shorter wait for an idle keep-alive connection and
//     a cap on the requests one connection may make;
//   - a byte budget for the request line and headers (and a cap on their number), and one
//     for the body, counted as the bytes arrive, chunked or not;
//   - no second request on a connection whose request announced a body (whether or not it
//     was read: a body left unread must never be taken for a request);
//   - a bounded worker pool whose overflow is answered 503 at once, and a cap on the
//     connections one address holds at once, so that a flood from one address leaves
//     workers for everyone else (the orchestrator's probes among them).
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <string>

namespace fp::service {

struct ConnectionLimits {
  std::size_t workers = 32;                     // connections served at once
  std::size_t queue = 128;                      // accepted connections waiting for a worker; more: 503
  std::size_t per_address = 16;                 // connections one client address holds in the workers; more: 503
  std::chrono::milliseconds idle{2000};         // a connection may wait this long before (each) request
  std::chrono::milliseconds request{10000};     // from a request's first byte to its last byte read
  std::chrono::milliseconds write{5000};        // each write of the answer
  std::size_t requests_per_connection = 100;    // then the connection is closed (keep-alive cap)
  std::size_t header_bytes = 16 * 1024;         // request line and headers together; more: 431
  std::size_t header_lines = 100;               // header lines; more: 431
};

// What a request ran out of while it was read, on the thread serving it: the error handler
// turns httplib's plain 400 into 431 or 413 with it.
enum class RequestOverrun { none, headers, body };
RequestOverrun request_overrun_on_this_thread();

// How many connections each client address holds in the workers.
class ConnectionsByAddress {
 public:
  explicit ConnectionsByAddress(std::size_t most) : most_(most) {}
  // Counts one in; false (nothing counted) when `address` holds `most` already.
  bool enter(const std::string& address);
  void leave(const std::string& address);

 private:
  std::size_t most_;
  std::mutex mutex_;
  std::map<std::string, std::size_t> held_;
};

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits);
  // After bind: a listen backlog of SOMAXCONN instead of httplib 0.11's 5, so that a burst
  // of connections is accepted (and served, queued or refused at once) instead of having
  // its SYNs dropped and retried a second or more later.
  void widen_backlog();

 private:
  // httplib's hook for one accepted connection (private virtual in httplib: overridden here).
  bool process_and_close_socket(socket_t sock) override;
  ConnectionLimits limits_;
  ConnectionsByAddress by_address_;
};

}  // namespace fp::service
