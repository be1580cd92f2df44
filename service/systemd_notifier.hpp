// What `framepipe serve` tells systemd (Type=notify): READY=1 once it serves, STATUS= lines,
// STOPPING=1 when a drain begins, and WATCHDOG=1 every half of WatchdogSec while the process
// is healthy, so that a hung service is killed and restarted (the unit's Restart=on-failure).
//
// The protocol is one datagram per message to the AF_UNIX socket named by $NOTIFY_SOCKET
// (a path, or "@name" in the abstract namespace): sd_notify(3), whose page describes it as
// stable and meant to be reimplemented. It is written here rather than linking libsystemd,
// which the GPU machines' builds do not have. Without $NOTIFY_SOCKET (not under systemd, or
// Type=exec) nothing is sent.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace fp::service {

class SystemdNotifier {
 public:
  // Reads $NOTIFY_SOCKET, $WATCHDOG_USEC and $WATCHDOG_PID (the watchdog is this process's
  // only when the pid is absent or its own).
  SystemdNotifier();
  SystemdNotifier(const SystemdNotifier&) = delete;
  SystemdNotifier& operator=(const SystemdNotifier&) = delete;
  ~SystemdNotifier();

  bool enabled() const { return !socket_path_.empty(); }
  // How often systemd wants WATCHDOG=1 (WatchdogSec); nullopt without a watchdog.
  std::optional<std::chrono::microseconds> watchdog_interval() const { return watchdog_; }

  // One message ("READY=1", "STATUS=...", "STOPPING=1"); false when it could not be sent.
  // Newlines separate assignments: a STATUS text must not hold one.
  bool send(const std::string& message) const;

  // With a watchdog: a thread sends WATCHDOG=1 every half interval for as long as healthy()
  // says so; when it says no, nothing is sent and systemd ends the service when the interval
  // runs out. healthy() is called on that thread.
  void start_watchdog(std::function<bool()> healthy);
  void stop_watchdog();

 private:
  std::string socket_path_;  // "" when disabled; a leading '@' is the abstract namespace
  std::optional<std::chrono::microseconds> watchdog_;
  std::thread watchdog_thread_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
};

}  // namespace fp::service
