#include "service/guarded_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

#include "service/bounded_task_queue.hpp"
#include "service/request_framing.hpp"

namespace fp::service {

namespace {

using Clock = std::chrono::steady_clock;

// Set while the listener's thread runs a connection that found the queue full.
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

void address_of(int sock, bool peer, std::string& ip, int& port) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  const int rc = peer ? ::getpeername(sock, reinterpret_cast<sockaddr*>(&addr), &len)
                      : ::getsockname(sock, reinterpret_cast<sockaddr*>(&addr), &len);
  if (rc != 0) return;
  char text[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    ::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text));
    port = ntohs(in->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in = reinterpret_cast<const sockaddr_in6*>(&addr);
    ::inet_ntop(AF_INET6, &in->sin6_addr, text, sizeof(text));
    port = ntohs(in->sin6_port);
  }
  ip = text;
}

// One request's view of the socket: every read must finish before the request's deadline,
// so a trickling client is cut off however slowly it sends, and within the byte budget of
// the part being read, so a greedy one is cut off however fast. httplib reads the request
// line and headers a byte at a time through this stream and the body in blocks of at most
// what it asks for: nothing is read ahead, so the bytes counted are the request's own.
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int sock, Clock::time_point deadline, std::chrono::milliseconds write_timeout)
      : sock_(sock), deadline_(deadline), write_timeout_(write_timeout) {}

  // From now on at most `bytes` may be read, and (for the headers) at most `lines` line
  // ends; reading more fails the read and records `part` as what ran out.
  void limit_reads(std::size_t bytes, std::size_t lines, RequestOverrun part) {
    budget_ = bytes;
    lines_left_ = lines;
    part_ = part;
  }

  bool is_readable() const override {
    return wait_for(sock_, POLLIN,
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()));
  }
  bool is_writable() const override { return wait_for(sock_, POLLOUT, write_timeout_); }
  ssize_t read(char* ptr, size_t size) override {
    if (budget_ == 0) return overrun();
    if (!is_readable()) {
      timed_out_ = true;
      return -1;
    }
    for (;;) {
      const ssize_t n = ::recv(sock_, ptr, std::min(size, budget_), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return n;
      budget_ -= static_cast<std::size_t>(n);
      if (part_ == RequestOverrun::headers) {
        const auto ends = static_cast<std::size_t>(std::count(ptr, ptr + n, '\n'));
        if (ends > lines_left_) return overrun();
        lines_left_ -= ends;
      }
      return n;
    }
  }
  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    for (;;) {
      const ssize_t n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      return n;
    }
  }
  void get_remote_ip_and_port(std::string& ip, int& port) const override { address_of(sock_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address_of(sock_, false, ip, port); }
  socket_t socket() const override { return sock_; }
  // A read ran into the deadline or a budget: httplib may still have answered (400), but
  // the client is not to be read from again.
  bool cut_off() const { return timed_out_ || overran_; }

 private:
  ssize_t overrun() {
    overran_ = true;
    t_overrun = part_;
    return -1;
  }
  bool timed_out_ = false;
  bool overran_ = false;
  int sock_;
  Clock::time_point deadline_;
  std::chrono::milliseconds write_timeout_;
  std::size_t budget_ = 0;
  std::size_t lines_left_ = 0;
  RequestOverrun part_ = RequestOverrun::none;
};

void close_connection(int sock) {
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

// A short answer sent without reading the request and without waiting on the client.
void refuse_at_once(int sock, std::string_view error) {
  const std::string body = "{\"error\": \"" + std::string(error) + "\", \"status\": 503}\n";
  const std::string answer = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: " +
                             std::to_string(body.size()) + "\r\nConnection: close\r\nRetry-After: 1\r\n\r\n" + body;
  [[maybe_unused]] const auto sent = ::send(sock, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  close_connection(sock);
}

// RFC 9112 2.2: a server ignores blank lines before a request line (some clients send a
// CRLF after a body). Consumes them, at most a few hundred bytes; false when nothing else
// came in time or the client is gone.
bool skip_blank_lines(int sock, std::chrono::milliseconds wait) {
  constexpr std::size_t kMostBlankBytes = 256;
  std::size_t skipped = 0;
  for (;;) {
    char peeked[64];
    const ssize_t n = ::recv(sock, peeked, sizeof(peeked), MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    const auto blank = static_cast<std::size_t>(
        std::find_if(peeked, peeked + n, [](char c) { return c != '\r' && c != '\n'; }) - peeked);
    if (blank == 0) return true;
    if (::recv(sock, peeked, blank, 0) != static_cast<ssize_t>(blank)) return false;
    skipped += blank;
    if (skipped > kMostBlankBytes) return false;
    if (blank < static_cast<std::size_t>(n)) return true;
    if (!wait_for(sock, POLLIN, wait)) return false;
  }
}

std::string peer_address(int sock) {
  std::string ip;
  int port = 0;
  address_of(sock, true, ip, port);
  return ip;
}

}  // namespace

RequestOverrun request_overrun_on_this_thread() { return t_overrun; }

GuardedServer::GuardedServer(ConnectionLimits limits) : limits_(limits), by_address_(limits.per_address) {
  new_task_queue = [limits] {
    return new BoundedTaskQueue(limits.workers, limits.queue, [](const std::function<void()>& job) {
      t_overflow = true;
      job();
      t_overflow = false;
    });
  };
}

void GuardedServer::widen_backlog() {
  if (svr_sock_ != INVALID_SOCKET) ::listen(svr_sock_, SOMAXCONN);
}

bool ConnectionsByAddress::enter(const std::string& address) {
  std::lock_guard lock(mutex_);
  auto& held = held_[address];
  if (held >= most_) return false;
  ++held;
  return true;
}

void ConnectionsByAddress::leave(const std::string& address) {
  std::lock_guard lock(mutex_);
  const auto found = held_.find(address);
  if (found != held_.end() && --found->second == 0) held_.erase(found);
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  if (t_overflow) {
    // Every worker is busy and the queue is full: say so without reading the request (the
    // listener's thread runs this).
    refuse_at_once(sock, "server busy");
    return false;
  }
  // Counted from the moment a worker holds the connection, idle or not: what a flood takes
  // from everyone else is workers.
  const std::string address = peer_address(sock);
  if (!by_address_.enter(address)) {
    refuse_at_once(sock, "too many connections from one address");
    return false;
  }
  // Counted out however this ends (httplib may throw out of a request it cannot read).
  struct CountedOut {
    ConnectionsByAddress& counts;
    const std::string& address;
    ~CountedOut() { counts.leave(address); }
  } counted{by_address_, address};
  bool ok = true;
  // Until stop() closed svr_sock_ (is_running() stays true until every worker is done, so a
  // client asking every second, as Prometheus does, would hold stop() for 100 requests).
  for (std::size_t left = limits_.requests_per_connection; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    // An idle connection (no request, or none after the last) is closed soon: idle
    // connections cannot pile up and hold the workers.
    if (!wait_for(sock, POLLIN, limits_.idle) || !skip_blank_lines(sock, limits_.idle)) break;
    t_overrun = RequestOverrun::none;
    DeadlineStream stream(sock, Clock::now() + limits_.request, limits_.write);
    // The request line counts as a header line (and httplib's own limit on it is 8 KiB).
    stream.limit_reads(limits_.header_bytes, limits_.header_lines + 2, RequestOverrun::headers);
    bool body_announced = false;
    bool closed = false;
    ok = process_request(stream, left == 1, closed, [&](httplib::Request& req) {
      stream.get_remote_ip_and_port(req.remote_addr, req.remote_port);
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
      // The body, as it arrives: the limit itself (httplib checks a Content-Length against
      // it, not a chunked body) plus room for chunked framing; a body over the limit is
      // never read whole only to be refused.
      stream.limit_reads(2 * payload_max_length_ + 4096, 0, RequestOverrun::body);
    });
    if (!ok || closed || body_announced || stream.cut_off()) break;
  }
  close_connection(sock);
  return ok;
}

}  // namespace fp::service
