// A FIFO as an output that blocks on purpose: opening one to write waits until a reader
// opens it, so a stream writing to it is stuck in a known place for as long as a test wants.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace fp::test {

// True when a thread of process `pid` waits in the kernel for the other end of a FIFO
// (opening a FIFO to write blocks in wait_for_partner until a reader opens it).
inline bool waits_on_a_fifo(int pid) {
  std::error_code error;
  for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", error)) {
    std::ifstream wchan(task.path() / "wchan");
    std::string where;
    if (wchan >> where && where == "wait_for_partner") return true;
  }
  return false;
}

// The same for this process (a manager under test runs its streams on its own threads).
inline bool a_thread_waits_on_a_fifo() { return waits_on_a_fifo(static_cast<int>(::getpid())); }

// Opens `fifo` to read (letting a writer's open return) and reads and discards everything
// until the writer closes it or the reader is destroyed.
class FifoReader {
 public:
  explicit FifoReader(const std::filesystem::path& fifo) : fd_(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK)) {
    thread_ = std::thread([this] {
      char buffer[65536];
      while (fd_ >= 0 && !stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 50) <= 0) continue;
        const ssize_t n = ::read(fd_, buffer, sizeof buffer);
        if (n == 0 && (p.revents & POLLHUP)) break;  // the writer closed it
      }
    });
  }
  ~FifoReader() {
    stop_ = true;
    thread_.join();
    if (fd_ >= 0) ::close(fd_);
  }
  FifoReader(const FifoReader&) = delete;
  FifoReader& operator=(const FifoReader&) = delete;
  bool opened() const { return fd_ >= 0; }

 private:
  int fd_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace fp::test
