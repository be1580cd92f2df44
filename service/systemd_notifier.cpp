#include "service/systemd_notifier.hpp"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cstring>

namespace fp::service {

namespace {

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// A positive decimal number, or nullopt.
std::optional<unsigned long long> positive_number(const std::string& text) {
  unsigned long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || value == 0) return std::nullopt;
  return value;
}

}  // namespace

SystemdNotifier::SystemdNotifier() {
  socket_path_ = environment("NOTIFY_SOCKET");
  // A path that does not fit sockaddr_un cannot be a socket systemd made: disabled.
  if (socket_path_.size() >= sizeof(sockaddr_un{}.sun_path) ||
      (socket_path_.size() > 0 && socket_path_[0] != '/' && socket_path_[0] != '@'))
    socket_path_.clear();
  const auto usec = positive_number(environment("WATCHDOG_USEC"));
  const std::string pid = environment("WATCHDOG_PID");
  const bool ours = pid.empty() || positive_number(pid) == static_cast<unsigned long long>(getpid());
  if (enabled() && usec && ours) watchdog_ = std::chrono::microseconds(*usec);
}

SystemdNotifier::~SystemdNotifier() { stop_watchdog(); }

bool SystemdNotifier::send(const std::string& message) const {
  if (!enabled()) return false;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, socket_path_.data(), socket_path_.size());
  socklen_t length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + socket_path_.size());
  if (socket_path_[0] == '@') {
    address.sun_path[0] = '\0';  // abstract: the name is the bytes after the NUL, unterminated
  } else {
    ++length;  // the path's terminating NUL
  }
  const int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const ssize_t sent = sendto(fd, message.data(), message.size(), MSG_NOSIGNAL, reinterpret_cast<sockaddr*>(&address), length);
  close(fd);
  return sent == static_cast<ssize_t>(message.size());
}

void SystemdNotifier::start_watchdog(std::function<bool()> healthy) {
  if (!watchdog_ || watchdog_thread_.joinable()) return;
  const auto every = *watchdog_ / 2;
  watchdog_thread_ = std::thread([this, every, healthy = std::move(healthy)] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      lock.unlock();
      if (healthy()) send("WATCHDOG=1");
      lock.lock();
      wake_.wait_for(lock, every, [this] { return stopping_; });
    }
  });
}

void SystemdNotifier::stop_watchdog() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (watchdog_thread_.joinable()) watchdog_thread_.join();
}

}  // namespace fp::service
