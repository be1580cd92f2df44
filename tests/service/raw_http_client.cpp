#include "tests/service/raw_http_client.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace fp::test {

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

}  // namespace

RawConnection::RawConnection(int port, const std::string& from) { reconnect(port, from); }

void RawConnection::reconnect(int port, const std::string& from) {
  if (sock_ >= 0) ::close(sock_);
  closed_ = false;
  sock_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock_ < 0) return;
  sockaddr_in local{};
  local.sin_family = AF_INET;
  sockaddr_in remote{};
  remote.sin_family = AF_INET;
  remote.sin_port = htons(static_cast<uint16_t>(port));
  remote.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::inet_pton(AF_INET, from.c_str(), &local.sin_addr) != 1 ||
      ::bind(sock_, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0 ||
      ::connect(sock_, reinterpret_cast<sockaddr*>(&remote), sizeof(remote)) != 0) {
    ::close(sock_);
    sock_ = -1;
  }
}

RawConnection::~RawConnection() {
  if (sock_ >= 0) ::close(sock_);
}

RawConnection::RawConnection(RawConnection&& other) noexcept : sock_(other.sock_), closed_(other.closed_) {
  other.sock_ = -1;
}

std::size_t RawConnection::send(std::string_view bytes, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::size_t sent = 0;
  while (sock_ >= 0 && sent < bytes.size()) {
    pollfd pfd{sock_, POLLOUT, 0};
    if (::poll(&pfd, 1, remaining_ms(deadline)) <= 0) break;
    const ssize_t n = ::send(sock_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) break;
    sent += static_cast<std::size_t>(n);
  }
  return sent;
}

bool RawConnection::send_byte(char byte) {
  return sock_ >= 0 && ::send(sock_, &byte, 1, MSG_NOSIGNAL | MSG_DONTWAIT) == 1;
}

std::string RawConnection::receive_until_closed(double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::string received;
  char buffer[4096];
  while (sock_ >= 0) {
    pollfd pfd{sock_, POLLIN, 0};
    const int ready = ::poll(&pfd, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    const ssize_t n = ::recv(sock_, buffer, sizeof(buffer), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      closed_ = true;
      break;
    }
    received.append(buffer, static_cast<std::size_t>(n));
  }
  return received;
}

int count_answers(std::string_view received) {
  int answers = 0;
  for (std::size_t at = received.find("HTTP/1.1 "); at != std::string_view::npos; at = received.find("HTTP/1.1 ", at + 1))
    if (at == 0 || received[at - 1] == '\n') ++answers;  // a body of JSON ends with a line end
  return answers;
}

int first_status(std::string_view received) {
  if (received.substr(0, 9) != "HTTP/1.1 " || received.size() < 12) return 0;
  return std::stoi(std::string(received.substr(9, 3)));
}

}  // namespace fp::test
