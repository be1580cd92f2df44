#include "service/guarded_server.hpp"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "service/bounded_task_queue.hpp"
#include "service/request_framing.hpp"

namespace fp::service {

namespace {

// Set while a pool whose queue is full runs a job only to refuse it.
thread_local bool t_overflow = false;
// What the request being read on this thread ran out of (request_overrun_on_this_thread).
thread_local RequestOverrun t_overrun = RequestOverrun::none;

// Waits for `events` up to `limit`; false on timeout or error.
bool wait_for(int sock, short events, std::chrono::milliseconds limit) {
  if (limit.count() <= 0) return false;
  pollfd pfd{sock, events, 0};
  for (;;) {
    const int n = ::poll(&pfd, 1, static_cast<int>(limit.count()));
    if (n < 0 && errno == EINTR) continue;
    return n > 0 && (pfd.revents & (events | POLLHUP | POLLERR)) != 0;
  }
}

// One request as httplib reads it: first its head as the intake checked it (without Range),
// then the bytes that came after the head, then the socket, every read before the request's
// deadline, so a trickling client is cut off however slowly it sends, and within the body's
// byte budget, so a greedy one is cut off however fast.
class RequestStream : public httplib::Stream {
 public:
  RequestStream(Connection& connection, std::string_view head, std::chrono::milliseconds write_timeout,
                std::size_t body_budget)
      : connection_(connection), head_(head), write_timeout_(write_timeout), budget_(body_budget) {}

  bool is_readable() const override {
    if (head_at_ < head_.size() || !connection_.buffer.empty()) return true;
    return wait_for(connection_.socket(), POLLIN, left());
  }
  bool is_writable() const override { return wait_for(connection_.socket(), POLLOUT, write_timeout_); }
  ssize_t read(char* ptr, size_t size) override {
    if (head_at_ < head_.size()) {
      const std::size_t n = std::min(size, head_.size() - head_at_);
      std::memcpy(ptr, head_.data() + head_at_, n);
      head_at_ += n;
      return static_cast<ssize_t>(n);
    }
    if (budget_ == 0) {
      overran_ = true;
      t_overrun = RequestOverrun::body;
      return -1;
    }
    if (std::string& buffer = connection_.buffer; !buffer.empty()) {
      const std::size_t n = std::min({size, buffer.size(), budget_});
      std::memcpy(ptr, buffer.data(), n);
      buffer.erase(0, n);
      budget_ -= n;
      return static_cast<ssize_t>(n);
    }
    if (!wait_for(connection_.socket(), POLLIN, left())) {
      timed_out_ = true;
      return -1;
    }
    for (;;) {
      const ssize_t n = ::recv(connection_.socket(), ptr, std::min(size, budget_), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n > 0) budget_ -= static_cast<std::size_t>(n);
      return n;
    }
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    for (;;) {
      const ssize_t n = ::send(connection_.socket(), ptr, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      return n;
    }
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    socket_address(connection_.socket(), true, ip, port);
  }
  void get_local_ip_and_port(std::string& ip, int& port) const override {
    socket_address(connection_.socket(), false, ip, port);
  }
  socket_t socket() const override { return connection_.socket(); }
  // A read ran into the deadline or the budget: httplib may still have answered (400), but
  // the client is not to be read from again.
  bool cut_off() const { return timed_out_ || overran_; }

 private:
  std::chrono::milliseconds left() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(connection_.request_deadline - SteadyClock::now());
  }
  Connection& connection_;
  std::string_view head_;
  std::size_t head_at_ = 0;
  std::chrono::milliseconds write_timeout_;
  std::size_t budget_;
  bool timed_out_ = false;
  bool overran_ = false;
};

IntakeLimits intake_limits(const ConnectionLimits& limits) {
  return {.per_address = limits.per_address,
          .most_waiting = limits.waiting,
          .idle = limits.idle,
          .request = limits.request,
          .head = {.most_bytes = limits.header_bytes, .most_lines = limits.header_lines}};
}

}  // namespace

RequestOverrun request_overrun_on_this_thread() { return t_overrun; }

// httplib's task queue, made the owner of what serves connections: the intake and the two
// worker pools. httplib hands it one job per accepted connection (process_and_close_socket),
// which it runs at once on the listener's thread: the job only gives the socket to the intake.
class GuardedServer::Scheduler : public httplib::TaskQueue {
 public:
  Scheduler(GuardedServer& server, const ConnectionLimits& limits)
      : server_(server),
        general_(limits.workers, limits.queue, refuse_overflow),
        priority_(limits.priority_workers, limits.queue, refuse_overflow),
        intake_(intake_limits(limits), [this](std::shared_ptr<Connection> c, RequestHead h) { dispatch(std::move(c), std::move(h)); },
                server.refusal_observer_) {}
  ~Scheduler() override { shutdown(); }

  void enqueue(std::function<void()> fn) override { fn(); }
  // The intake first (nothing more is dispatched), then the pools finish what they hold.
  void shutdown() override {
    intake_.stop();
    general_.shutdown();
    priority_.shutdown();
  }
  void admit(int sock) { intake_.admit(sock); }
  void readmit(std::shared_ptr<Connection> connection) { intake_.readmit(std::move(connection)); }

 private:
  static void refuse_overflow(const std::function<void()>& job) {
    t_overflow = true;
    job();
    t_overflow = false;
  }
  void dispatch(std::shared_ptr<Connection> connection, RequestHead head) {
    BoundedTaskQueue& pool = server_.priority_ && server_.priority_(head) ? priority_ : general_;
    pool.enqueue([this, connection = std::move(connection), head = std::move(head)] { server_.serve(connection, head); });
  }
  GuardedServer& server_;
  // Before the intake: its thread dispatches to them as soon as it runs.
  BoundedTaskQueue general_;
  BoundedTaskQueue priority_;
  ConnectionIntake intake_;
};

GuardedServer::GuardedServer(ConnectionLimits limits) : limits_(limits) {
  new_task_queue = [this] {
    scheduler_ = new Scheduler(*this, limits_);
    return scheduler_;
  };
}

GuardedServer::~GuardedServer() = default;

void GuardedServer::widen_backlog() {
  if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, SOMAXCONN);
}

void GuardedServer::set_priority(std::function<bool(const RequestHead&)> priority) { priority_ = std::move(priority); }

void GuardedServer::set_refusal_observer(std::function<void(int)> observer) {
  refusal_observer_ = std::move(observer);
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  scheduler_->admit(sock);
  return true;
}

void GuardedServer::serve(const std::shared_ptr<Connection>& connection, const RequestHead& head) {
  if (t_overflow) {
    // Every worker of its pool is busy and the queue is full: say so (the connection closes
    // as the job goes).
    send_at_once(connection->socket(), 503, "server busy");
    return;
  }
  t_overrun = RequestOverrun::none;
  const bool last = ++connection->requests >= limits_.requests_per_connection;
  RequestStream stream(*connection, head.for_parser, limits_.write, 2 * payload_max_length_ + 4096);
  bool body_announced = false;
  bool closed = false;
  const bool ok = process_request(stream, last, closed, [&](httplib::Request& req) {
    body_announced = carries_body(req);
    // The answer says the connection ends with it (and it does, below).
    if (body_announced) {
      req.headers.erase("Connection");
      req.set_header("Connection", "close");
    }
    // `curl -X POST URL` sends no body and no Content-Length; httplib 0.11 would then read
    // a body until the connection closes, and answer 400. A request without either header
    // has no body (RFC 9112 6.3), so say so.
    if (!req.has_header("Content-Length") && !req.has_header("Transfer-Encoding"))
      req.set_header("Content-Length", "0");
  });
  // Until stop() closed svr_sock_: a client asking every second, as Prometheus does, would
  // otherwise hold stop() for 100 requests.
  if (ok && !closed && !body_announced && !last && !stream.cut_off() && svr_sock_ != INVALID_SOCKET)
    scheduler_->readmit(connection);
}

}  // namespace fp::service
