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
  // `cwd`/`log_name`. Both return once the program runs (its exec succeeded), and throw
  // when it cannot be run.
  BackgroundRun(const std::filesystem::path& cwd, const std::string& program, const std::vector<std::string>& args,
                const std::string& log_name);
  ~BackgroundRun();
  BackgroundRun(const BackgroundRun&) = delete;
  BackgroundRun& operator=(const BackgroundRun&) = delete;

  void signal(int sig);  // and notes the time, for wait()'s second result
  // Waits up to `limit` seconds: the exit code (-1: still running, then killed; -2: killed
  // by a signal) and the seconds from the last signal (or the start) to the end.
  std::pair<int, double> wait(double limit);
  // How it ended: "exit N", "signal N (NAME)", or "running".
  std::string how_it_ended() const;
  // For a failure's message: how_it_ended(), then everything it printed.
  std::string outcome() const { return how_it_ended() + "; its output:\n" + output(); }
  bool alive();
  // Whether it has installed a handler for `sig` within time_bound(seconds) (Linux: the
  // SigCgt mask in /proc/PID/status). A test that sends a signal to see it handled waits for
  // this first: before its handler is there, a signal kills a program by default, and a
  // sanitized program on a loaded machine can take over a second to get that far.
  bool catches_within(int sig, double seconds);
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
