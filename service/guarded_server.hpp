// An httplib::Server that a slow, greedy or hostile client cannot take down, nor smuggle a
// request through. httplib 0.11 reads a connection with a worker from the moment it is
// accepted, bounds each read but not a request, skips header lines it cannot parse and
// reads on after refusing one; so this server takes each accepted connection from httplib
// (process_and_close_socket, its one hook for it) and
//   - reads its request head without a worker (connection_intake.hpp): strictly framed or
//     refused and closed (request_head.hpp), within a byte budget, a deadline for the whole
//     request and a shorter wait while idle; at most `per_address` connections an address;
//   - hands a complete head to a worker: probes and requests that carry the valid token to
//     a pool of their own (`priority_workers`), everything else to the general pool; a
//     pool whose queue is full answers 503 at once;
//   - lets httplib parse and route that one request (it sees the head as checked, without
//     Range), reads its body within its budget, counted as the bytes arrive, chunked or not;
//   - gives the connection back to the intake for its next request, unless the request
//     announced a body (whether or not it was read: a body left unread must never be taken
//     for a request), asked to close, or was the connection's last (the keep-alive cap).
#pragma once

#include <httplib.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "service/connection_intake.hpp"
#include "service/request_head.hpp"

namespace fp::service {

struct ConnectionLimits {
  std::size_t workers = 32;                     // requests served at once (the general pool)
  std::size_t priority_workers = 8;             // more, for probes and requests with the valid token only
  std::size_t queue = 128;                      // complete requests waiting for a worker, each pool; more: 503
  std::size_t per_address = 16;                 // connections one client address holds at once; more: 503
  std::size_t waiting = 512;                    // connections waiting for their head; more: the oldest is closed
  std::chrono::milliseconds idle{2000};         // a connection may wait this long before (each) request
  std::chrono::milliseconds request{10000};     // from a request's first byte to its last byte read
  std::chrono::milliseconds write{5000};        // each write of the answer
  std::size_t requests_per_connection = 100;    // then the connection is closed (keep-alive cap)
  std::size_t header_bytes = 16 * 1024;         // request line and headers together; more: 431
  std::size_t header_lines = 100;               // header lines; more: 431
};

// What a request ran out of while its body was read, on the thread serving it: the error
// handler turns httplib's plain 400 into 413 with it.
enum class RequestOverrun { none, body };
RequestOverrun request_overrun_on_this_thread();

class GuardedServer : public httplib::Server {
 public:
  explicit GuardedServer(ConnectionLimits limits);
  ~GuardedServer() override;
  // After bind: a listen backlog of SOMAXCONN instead of httplib 0.11's 5, so that a burst
  // of connections is accepted (and served, queued or refused at once) instead of having
  // its SYNs dropped and retried a second or more later.
  void widen_backlog();
  // Before listening. Which requests the reserved workers serve (the probes, a valid token);
  // called on the intake's thread, with the head as checked.
  void set_priority(std::function<bool(const RequestHead&)> priority);
  // Before listening. Called with the status of each request refused before httplib saw it
  // (a head not framed exactly, or too large), from the intake's thread.
  void set_refusal_observer(std::function<void(int status)> observer);

 private:
  class Scheduler;
  // httplib's hook for one accepted connection (private virtual in httplib: overridden here):
  // hands it to the intake, on the listener's thread.
  bool process_and_close_socket(socket_t sock) override;
  // On a worker: one request whose head has arrived.
  void serve(const std::shared_ptr<Connection>& connection, const RequestHead& head);
  ConnectionLimits limits_;
  std::function<bool(const RequestHead&)> priority_;
  std::function<void(int)> refusal_observer_;
  Scheduler* scheduler_ = nullptr;  // httplib owns it (new_task_queue) while it listens
};

}  // namespace fp::service
