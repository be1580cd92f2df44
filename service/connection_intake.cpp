#include "service/connection_intake.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>

namespace fp::service {

namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 400: return "Bad Request";
    case 431: return "Request Header Fields Too Large";
    case 503: return "Service Unavailable";
    default: return "Error";
  }
}

void close_socket(int sock) {
  ::shutdown(sock, SHUT_RDWR);
  ::close(sock);
}

}  // namespace

void socket_address(int sock, bool peer, std::string& ip, int& port) {
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

std::string peer_address(int sock) {
  std::string ip;
  int port = 0;
  socket_address(sock, true, ip, port);
  return ip;
}

void send_at_once(int sock, int status, std::string_view message) {
  const std::string body =
      "{\"error\": \"" + std::string(message) + "\", \"status\": " + std::to_string(status) + "}\n";
  std::string answer = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) +
                       "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
                       "\r\nConnection: close\r\n";
  if (status == 503) answer += "Retry-After: 1\r\n";
  answer += "\r\n" + body;
  [[maybe_unused]] const auto sent = ::send(sock, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
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

Connection::Connection(int sock, std::string address, ConnectionsByAddress& counts)
    : sock_(sock), address_(std::move(address)), counts_(counts) {}

Connection::~Connection() {
  close_socket(sock_);
  counts_.leave(address_);
}

// A connection being read, and what its reading has found so far.
struct ConnectionIntake::Waiting {
  std::shared_ptr<Connection> connection;
  RequestHeadScanner scanner;
  SteadyClock::time_point since;          // when it began to wait here: the oldest goes first when full
  SteadyClock::time_point idle_deadline;  // for the request's first byte
  bool begun = false;

  SteadyClock::time_point deadline() const { return begun ? connection->request_deadline : idle_deadline; }
};

ConnectionIntake::ConnectionIntake(IntakeLimits limits, Dispatch dispatch, Refused refused)
    : limits_(limits), dispatch_(std::move(dispatch)), refused_(std::move(refused)), by_address_(limits.per_address) {
  wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) throw std::runtime_error("cannot create an eventfd for the HTTP intake");
  thread_ = std::thread([this] { loop(); });
}

ConnectionIntake::~ConnectionIntake() {
  stop();
  ::close(wake_fd_);
}

void ConnectionIntake::wake() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const auto written = ::write(wake_fd_, &one, sizeof(one));
}

void ConnectionIntake::admit(int sock) {
  std::string address = peer_address(sock);
  if (!by_address_.enter(address)) {
    send_at_once(sock, 503, "too many connections from one address");
    close_socket(sock);
    return;
  }
  readmit(std::make_shared<Connection>(sock, std::move(address), by_address_));
}

void ConnectionIntake::readmit(std::shared_ptr<Connection> connection) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;  // closed as it goes
    inbox_.push_back(std::move(connection));
  }
  wake();
}

void ConnectionIntake::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    stopping_ = true;
    inbox_.clear();
  }
  wake();
  if (thread_.joinable()) thread_.join();
}

void ConnectionIntake::loop() {
  std::vector<Waiting> waiting;
  std::vector<pollfd> fds;
  char chunk[4096];
  // What a connection's buffer may hold while its head is read: the head's budget, blank
  // lines before it, and what came with it (the start of a body).
  const std::size_t most_buffered = limits_.head.most_bytes + kMostBlankBytes + sizeof(chunk);

  // Reads what the scanner says of `w`: true when `w` is done here (handed on or closed).
  const auto look = [&](Waiting& w) {
    Connection& connection = *w.connection;
    const auto state = w.scanner.scan(connection.buffer);
    if (!w.begun && w.scanner.begun()) {
      w.begun = true;
      connection.request_deadline = SteadyClock::now() + limits_.request;
    }
    if (state == RequestHeadScanner::State::more) return false;
    HeadRefusal refusal = w.scanner.refusal();
    std::optional<RequestHead> head;
    if (state == RequestHeadScanner::State::complete)
      head = parse_request_head(std::string_view(connection.buffer)
                                    .substr(w.scanner.head_begin(), w.scanner.head_end() - w.scanner.head_begin()),
                                refusal);
    if (!head) {
      send_at_once(connection.socket(), refusal.status, refusal.message);
      if (refused_) refused_(refusal.status);
      return true;  // closed as `w` goes
    }
    connection.buffer.erase(0, w.scanner.head_end());
    dispatch_(std::move(w.connection), std::move(*head));
    return true;
  };

  for (;;) {
    std::vector<std::shared_ptr<Connection>> arrived;
    {
      std::lock_guard lock(mutex_);
      if (stopping_) break;
      arrived.swap(inbox_);
    }
    auto now = SteadyClock::now();
    for (auto& connection : arrived) {
      if (waiting.size() >= limits_.most_waiting) {
        // Full: the one that has waited longest makes room (closed as it goes).
        const auto oldest = std::min_element(waiting.begin(), waiting.end(),
                                             [](const Waiting& a, const Waiting& b) { return a.since < b.since; });
        waiting.erase(oldest);
      }
      waiting.push_back({std::move(connection), RequestHeadScanner(limits_.head), now, now + limits_.idle, false});
      // A readmitted connection may hold the next request already (sent with the last).
      if (!waiting.back().connection->buffer.empty() && look(waiting.back())) waiting.pop_back();
    }
    // Past its deadline: closed without an answer (a client that says nothing is owed none).
    std::erase_if(waiting, [&](const Waiting& w) { return w.deadline() <= now; });

    auto next = now + std::chrono::seconds(1);
    for (const auto& w : waiting) next = std::min(next, w.deadline());
    fds.assign(1, pollfd{wake_fd_, POLLIN, 0});
    for (const auto& w : waiting) fds.push_back({w.connection->socket(), POLLIN, 0});
    const auto wait_ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - now).count() + 1;
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(wait_ms, 0))) < 0) continue;  // EINTR
    if (fds[0].revents & POLLIN) {
      std::uint64_t count = 0;
      [[maybe_unused]] const auto got = ::read(wake_fd_, &count, sizeof(count));
    }
    std::vector<bool> done(waiting.size(), false);
    for (std::size_t i = 0; i < waiting.size(); ++i) {
      if ((fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Connection& connection = *waiting[i].connection;
      const std::size_t room = most_buffered - std::min(most_buffered, connection.buffer.size());
      const ssize_t n = ::recv(connection.socket(), chunk, std::min(room, sizeof(chunk)), MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
      if (n <= 0) {  // gone (or a full buffer the scanner has not refused: cannot be)
        done[i] = true;
        continue;
      }
      connection.buffer.append(chunk, static_cast<std::size_t>(n));
      done[i] = look(waiting[i]);
    }
    std::size_t kept = 0;
    for (std::size_t i = 0; i < waiting.size(); ++i)
      if (!done[i]) {
        if (kept != i) std::swap(waiting[kept], waiting[i]);
        ++kept;
      }
    waiting.erase(waiting.begin() + static_cast<std::ptrdiff_t>(kept), waiting.end());
  }
}

}  // namespace fp::service
