#include "service/guarded_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

#include "service/bounded_task_queue.hpp"

namespace fp::service {

namespace {

using Clock = std::chrono::steady_clock;

// Set while the listener's thread runs a connection that found the queue full.
thread_local bool t_overflow = false;

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
// so a trickling client is cut off however slowly it sends.
class DeadlineStream : public httplib::Stream {
 public:
  DeadlineStream(int sock, Clock::time_point deadline, std::chrono::milliseconds write_timeout)
      : sock_(sock), deadline_(deadline), write_timeout_(write_timeout) {}

  bool is_readable() const override {
    return wait_for(sock_, POLLIN,
                    std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()));
  }
  bool is_writable() const override { return wait_for(sock_, POLLOUT, write_timeout_); }
  ssize_t read(char* ptr, size_t size) override {
    if (!is_readable()) return -1;
    for (;;) {
      const ssize_t n = ::recv(sock_, ptr, size, 0);
      if (n < 0 && errno == EINTR) continue;
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

 private:
  int sock_;
  Clock::time_point deadline_;
  std::chrono::milliseconds write_timeout_;
};

void close_connection(int sock) {
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

}  // namespace

GuardedServer::GuardedServer(ConnectionLimits limits) : limits_(limits) {
  new_task_queue = [limits] {
    return new BoundedTaskQueue(limits.workers, limits.queue, [](const std::function<void()>& job) {
      t_overflow = true;
      job();
      t_overflow = false;
    });
  };
}

bool GuardedServer::process_and_close_socket(socket_t sock) {
  if (t_overflow) {
    // Every worker is busy and the queue is full: say so without reading the request, and
    // without waiting on the client (the listener's thread runs this).
    static constexpr char kBusy[] =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 40\r\n"
        "Connection: close\r\nRetry-After: 1\r\n\r\n{\"error\": \"server busy\", \"status\": 503}\n";
    [[maybe_unused]] const auto sent = ::send(sock, kBusy, sizeof(kBusy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    close_connection(sock);
    return false;
  }
  bool ok = true;
  for (std::size_t left = limits_.requests_per_connection; left > 0 && is_running(); --left) {
    // An idle connection (no request, or none after the last) is closed soon: idle
    // connections cannot pile up and hold the workers.
    if (!wait_for(sock, POLLIN, limits_.idle)) break;
    DeadlineStream stream(sock, Clock::now() + limits_.request, limits_.write);
    bool closed = false;
    ok = process_request(stream, left == 1, closed, [&](httplib::Request& req) {
      stream.get_remote_ip_and_port(req.remote_addr, req.remote_port);
    });
    if (!ok || closed) break;
  }
  close_connection(sock);
  return ok;
}

}  // namespace fp::service
