// Where a connection waits for its request head without holding a worker: one thread polls
// every such connection, reads what arrives into the connection's own buffer (at most a
// head's budget), refuses a head that is not framed exactly (request_head.hpp: 400 or 431,
// then closes), closes one that is idle or slow past its deadline, and hands each complete
// head on (`Dispatch`). A worker serves that one request and gives the connection back here
// if it may carry another. So slow or silent clients, however many, cost a buffer each and
// never a worker: the workers serve only requests that have fully arrived.
//
// Bounded: each client address holds at most `per_address` connections (here or in a
// worker: a further one is answered 503 at once), and the intake at most `most_waiting`;
// when it is full, the connection that has waited longest for its head is closed to make
// room, so a new client (an orchestrator's probe) is always read.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "service/request_head.hpp"

namespace fp::service {

using SteadyClock = std::chrono::steady_clock;

struct IntakeLimits {
  std::size_t per_address = 16;                // connections one client address holds at once
  std::size_t most_waiting = 512;              // connections waiting for their head
  std::chrono::milliseconds idle{2000};        // a connection may wait this long before (each) request
  std::chrono::milliseconds request{10000};    // from a request's first byte to its last byte read
  HeadLimits head;
};

// How many connections each client address holds.
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

// One accepted connection: its socket (closed with it), its place in its address's count
// (given back with it), and the bytes read from it that no request has used yet.
class Connection {
 public:
  // Counted in `counts` already (ConnectionsByAddress::enter); counted out when destroyed.
  Connection(int sock, std::string address, ConnectionsByAddress& counts);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int socket() const { return sock_; }
  const std::string& address() const { return address_; }
  std::string buffer;                       // read, not yet used
  SteadyClock::time_point request_deadline;  // of the request being read
  std::size_t requests = 0;                 // served on this connection

 private:
  int sock_;
  std::string address_;
  ConnectionsByAddress& counts_;
};

// Sends a short JSON answer, closing the connection, without waiting on the client (the
// socket's buffer takes it). `message` is the server's own text, never the client's.
void send_at_once(int sock, int status, std::string_view message);

// The peer's address of a connected socket ("" when it cannot be told).
std::string peer_address(int sock);
// The peer's (or with peer false, the local) address and port of a connected socket.
void socket_address(int sock, bool peer, std::string& ip, int& port);

class ConnectionIntake {
 public:
  // A head has arrived whole: `head` is parsed; its bytes are gone from connection->buffer
  // (what follows them stays). Runs on the intake's thread: it must be quick. The connection
  // has one owner at a time: the intake, then the worker that serves its request.
  using Dispatch = std::function<void(std::shared_ptr<Connection> connection, RequestHead head)>;
  // A head was refused (its status was answered): for the request metrics.
  using Refused = std::function<void(int status)>;

  ConnectionIntake(IntakeLimits limits, Dispatch dispatch, Refused refused);
  ~ConnectionIntake();  // stop()
  ConnectionIntake(const ConnectionIntake&) = delete;
  ConnectionIntake& operator=(const ConnectionIntake&) = delete;

  // A connection just accepted (from any thread): counted against its address (or refused
  // 503 at once), then read.
  void admit(int sock);
  // A connection whose request was answered and that may carry another.
  void readmit(std::shared_ptr<Connection> connection);
  // Closes every waiting connection and ends the thread; what is admitted later is closed.
  void stop();

 private:
  struct Waiting;
  void loop();
  void wake();
  IntakeLimits limits_;
  Dispatch dispatch_;
  Refused refused_;
  ConnectionsByAddress by_address_;
  int wake_fd_ = -1;  // an eventfd: admit, readmit and stop wake the poll
  std::mutex mutex_;
  std::vector<std::shared_ptr<Connection>> inbox_;  // admitted or readmitted, not yet polled
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace fp::service
