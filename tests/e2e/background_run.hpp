// framepipe running in the background, for tests that signal it, or stop or restart a
// server while it runs. Its stdout and stderr go to a file; the process is killed if the
// test ends before it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace fp::test {

class BackgroundRun {
 public:
  // Starts framepipe in `cwd` with `args`; its output goes to `cwd`/framepipe.log.
  BackgroundRun(const std::filesystem::path& cwd, const std::vector<std::string>& args);
  // Starts another program (a receiver such as ffmpeg) the same way; its output goes to
  // `cwd`/`log_name`.
  BackgroundRun(const std::filesystem::path& cwd, const std::string& program, const std::vector<std::string>& args,
                const std::string& log_name);
  ~BackgroundRun();
  BackgroundRun(const BackgroundRun&) = delete;
  BackgroundRun& operator=(const BackgroundRun&) = delete;

  void signal(int sig);  // and notes the time, for wait()'s second result
  // Waits up to `limit` seconds: the exit code (-1: still running, then killed; -2: killed
  // by a signal) and the seconds from the last signal (or the start) to the end.
  std::pair<int, double> wait(double limit);
  bool alive();
  std::string output() const;  // everything it printed so far
  pid_t pid() const { return pid_; }

 private:
  using Clock = std::chrono::steady_clock;
  bool reap();
  pid_t pid_ = -1;
  bool ended_ = false;
  int status_ = 0;  // waitpid's, once ended_
  Clock::time_point ended_at_{};
  std::filesystem::path log_;
  Clock::time_point signalled_at_ = Clock::now();
};

}  // namespace fp::test
