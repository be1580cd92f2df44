// framepipe serve under systemd's Type=notify, with a socket of the test's own standing in
// for systemd's ($NOTIFY_SOCKET): READY=1 once it serves, WATCHDOG=1 every half of
// $WATCHDOG_USEC while its supervisor goes round, none while that thread is stopped (so
// systemd would kill and restart a hung service), again once it goes on, and STOPPING=1
// when SIGTERM's drain begins.
#include <gtest/gtest.h>

#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

// A datagram socket bound in a fresh folder of /tmp (sun_path holds 108 bytes, less than a
// test folder's path may take), as systemd's notify socket is.
class NotifySocket {
 public:
  NotifySocket() {
    char folder[] = "/tmp/fp-notify-XXXXXX";
    if (mkdtemp(folder) != nullptr) folder_ = folder;
    path_ = folder_ / "notify";
    fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path_.c_str(), sizeof(address.sun_path) - 1);
    bound_ = fd_ >= 0 && !folder_.empty() && bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~NotifySocket() {
    if (fd_ >= 0) close(fd_);
    std::error_code ignored;
    fs::remove_all(folder_, ignored);
  }
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  bool bound() const { return bound_; }
  const fs::path& path() const { return path_; }

  // Every message that arrives within `seconds`.
  std::vector<std::string> receive_for(double seconds) {
    std::vector<std::string> messages;
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      const auto left = std::chrono::duration_cast<std::chrono::microseconds>(end - std::chrono::steady_clock::now());
      timeval timeout{.tv_sec = static_cast<time_t>(left.count() / 1000000),
                      .tv_usec = static_cast<suseconds_t>(std::max<long long>(left.count() % 1000000, 1000))};
      setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
      char buffer[4096];
      const ssize_t got = recv(fd_, buffer, sizeof(buffer), 0);
      if (got > 0) messages.emplace_back(buffer, static_cast<std::size_t>(got));
    }
    return messages;
  }

  // Waits up to `seconds` for a message holding the line `line`; what came meanwhile is kept
  // in `seen`.
  bool wait_for(const std::string& line, double seconds, std::vector<std::string>& seen) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < end) {
      for (auto& message : receive_for(0.1)) {
        const bool found = ("\n" + message + "\n").find("\n" + line + "\n") != std::string::npos;
        seen.push_back(std::move(message));
        if (found) return true;
      }
    }
    return false;
  }

 private:
  fs::path folder_;
  fs::path path_;
  int fd_ = -1;
  bool bound_ = false;
};

int count(const std::vector<std::string>& messages, const std::string& message) {
  return static_cast<int>(std::count(messages.begin(), messages.end(), message));
}

std::string joined(const std::vector<std::string>& messages) {
  std::string text;
  for (const auto& message : messages) text += "[" + message + "] ";
  return text;
}

// The thread of `pid` whose name is `name` (/proc/PID/task/TID/comm), or -1.
pid_t thread_named(pid_t pid, const std::string& name) {
  for (const auto& task : fs::directory_iterator("/proc/" + std::to_string(pid) + "/task")) {
    std::string comm;
    std::getline(std::ifstream(task.path() / "comm"), comm);
    if (comm == name) return static_cast<pid_t>(std::stoi(task.path().filename().string()));
  }
  return -1;
}

// With WatchdogSec=1s systemd sets WATCHDOG_USEC=1000000: WATCHDOG=1 every 0.5 s.
TEST(ServeSystemd, ReadyThenAWatchdogThatFollowsTheSupervisor) {
  NotifySocket notify;
  ASSERT_TRUE(notify.bound()) << notify.path() << ": " << std::strerror(errno);
  ::setenv("NOTIFY_SOCKET", notify.path().c_str(), 1);
  ::setenv("WATCHDOG_USEC", "1000000", 1);
  ServeProcess server("systemd-notify");
  ::unsetenv("NOTIFY_SOCKET");
  ::unsetenv("WATCHDOG_USEC");
  ASSERT_TRUE(server.ready()) << server.failure();

  std::vector<std::string> seen;
  ASSERT_TRUE(notify.wait_for("READY=1", time_bound(10), seen)) << joined(seen) << "\n" << server.log();
  // 3 s of pings every 0.5 s: 6, at least 3 on a loaded machine.
  EXPECT_GE(count(notify.receive_for(3), "WATCHDOG=1"), 3) << server.log();

  // The supervisor stopped alone (ptrace stops one thread; the listener and the streams go
  // on): within its 5 s bound /livez says so, and from then on no WATCHDOG=1 comes.
  const pid_t supervisor = thread_named(server.process().pid(), "fp-supervisor");
  ASSERT_GT(supervisor, 0) << "no thread named fp-supervisor";
  ASSERT_EQ(ptrace(PTRACE_SEIZE, supervisor, nullptr, nullptr), 0) << std::strerror(errno);
  ASSERT_EQ(ptrace(PTRACE_INTERRUPT, supervisor, nullptr, nullptr), 0) << std::strerror(errno);
  int status = 0;
  ASSERT_EQ(waitpid(supervisor, &status, __WALL), supervisor) << std::strerror(errno);
  ASSERT_TRUE(WIFSTOPPED(status));
  const bool livez_failed =
      eventually([&] { return curl("GET", server.url("/livez"), {}, 5).status == 503; }, 10,
                 std::chrono::milliseconds(200));
  notify.receive_for(0.6);  // a ping sent just before /livez's answer, still in the socket
  const auto while_stopped = notify.receive_for(3);
  ASSERT_EQ(ptrace(PTRACE_DETACH, supervisor, nullptr, nullptr), 0) << std::strerror(errno);
  EXPECT_TRUE(livez_failed) << "/livez still 200 with the supervisor stopped";
  EXPECT_EQ(count(while_stopped, "WATCHDOG=1"), 0) << joined(while_stopped);

  // Going on again, it is alive again.
  seen.clear();
  EXPECT_TRUE(notify.wait_for("WATCHDOG=1", time_bound(3), seen)) << joined(seen);
  EXPECT_EQ(curl("GET", server.url("/livez")).status, 200);

  server.process().signal(SIGTERM);
  seen.clear();
  EXPECT_TRUE(notify.wait_for("STOPPING=1", time_bound(10), seen)) << joined(seen) << "\n" << server.log();
  EXPECT_EQ(server.process().wait(time_bound(25)).first, 0) << server.log();
}

// Without $NOTIFY_SOCKET (a plain start, Type=exec) nothing is sent anywhere, and a
// $NOTIFY_SOCKET that is no socket changes nothing of what serve does.
TEST(ServeSystemd, ANotifySocketThatIsNoSocketChangesNothing) {
  ::setenv("NOTIFY_SOCKET", "/nonexistent/notify", 1);
  ::setenv("WATCHDOG_USEC", "1000000", 1);
  ServeProcess server("systemd-no-socket");
  ::unsetenv("NOTIFY_SOCKET");
  ::unsetenv("WATCHDOG_USEC");
  ASSERT_TRUE(server.ready()) << server.failure();
  EXPECT_EQ(curl("GET", server.url("/livez")).status, 200);
}

}  // namespace
}  // namespace fp::test
