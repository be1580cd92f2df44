#include "tests/e2e/background_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <sstream>
#include <thread>

#include "tests/e2e/cli_runner.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {

BackgroundRun::BackgroundRun(const std::filesystem::path& cwd, const std::vector<std::string>& args)
    : BackgroundRun(cwd, framepipe_binary(), args, "framepipe.log") {}

BackgroundRun::BackgroundRun(const std::filesystem::path& cwd, const std::string& program,
                             const std::vector<std::string>& args, const std::string& log_name)
    : log_(cwd / log_name) {
  // Everything the child needs is made here, before fork: the test process has threads of
  // its own (a silent server's, say), and a child of a threaded process may call only
  // async-signal-safe functions until it execs. An allocation there can wait forever on a
  // lock that another thread held at the fork: the child never becomes the program, and a
  // test's signal then kills a copy of the test (one of the two ways CI's ASan run saw a
  // signal test's child end by SIGTERM).
  const std::string dir = cwd.string();
  const std::string log = log_.string();
  std::vector<char*> argv{const_cast<char*>(program.c_str())};
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  // The child writes its errno here if it cannot exec; the exec closes it (O_CLOEXEC), so
  // end of file means the program runs, and the constructor returns only then.
  int exec_status[2];
  if (pipe2(exec_status, O_CLOEXEC) != 0) throw std::runtime_error("BackgroundRun: pipe2 failed");
  pid_ = fork();
  if (pid_ == 0) {
    close(exec_status[0]);
    int error = 0;
    const int fd = chdir(dir.c_str()) == 0 ? open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644) : -1;
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
      error = errno;
    } else {
      execvp(argv[0], argv.data());  // a program without a path is looked for on PATH
      error = errno;
    }
    [[maybe_unused]] const ssize_t n = write(exec_status[1], &error, sizeof error);
    _exit(98);
  }
  close(exec_status[1]);
  if (pid_ < 0) {
    close(exec_status[0]);
    throw std::runtime_error("BackgroundRun: fork failed");
  }
  int error = 0;
  ssize_t n;
  while ((n = read(exec_status[0], &error, sizeof error)) < 0 && errno == EINTR) {
  }
  close(exec_status[0]);
  if (n > 0) {
    waitpid(pid_, &status_, 0);
    ended_ = true;
    ended_at_ = Clock::now();
    throw std::runtime_error("BackgroundRun: cannot run " + program + " in " + dir + ": " + std::strerror(error));
  }
}

BackgroundRun::~BackgroundRun() {
  if (pid_ > 0 && !ended_) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void BackgroundRun::signal(int sig) {
  kill(pid_, sig);
  signalled_at_ = Clock::now();
}

std::pair<int, double> BackgroundRun::wait(double limit) {
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit));
  while (!ended_ && Clock::now() < deadline) {
    if (reap()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (!ended_) return {-1, limit};
  const double took = std::chrono::duration<double>(ended_at_ - signalled_at_).count();
  return {WIFEXITED(status_) ? WEXITSTATUS(status_) : -2, took};
}

// Reaps the process if it has ended, keeping its status: alive() reaps too, and a later
// wait() must still tell how it ended (waitpid answers only once).
bool BackgroundRun::reap() {
  if (!ended_ && waitpid(pid_, &status_, WNOHANG) == pid_) {
    ended_ = true;
    ended_at_ = Clock::now();
  }
  return ended_;
}

bool BackgroundRun::alive() { return !reap(); }

bool BackgroundRun::catches_within(int sig, double seconds) {
  const std::string status_file = "/proc/" + std::to_string(pid_) + "/status";
  return eventually(
      [&] {
        if (!alive()) return true;  // ended: waiting longer tells nothing; the caller's checks say why
        std::ifstream in(status_file);
        for (std::string line; std::getline(in, line);)
          if (line.rfind("SigCgt:", 0) == 0) return ((std::stoull(line.substr(7), nullptr, 16) >> (sig - 1)) & 1) != 0;
        return false;
      },
      seconds) && alive();
}

std::string BackgroundRun::how_it_ended() const {
  if (!ended_) return "running";
  if (WIFEXITED(status_)) return "exit " + std::to_string(WEXITSTATUS(status_));
  const int sig = WTERMSIG(status_);
  const char* name = sigabbrev_np(sig);
  return "signal " + std::to_string(sig) + (name ? std::string(" (SIG") + name + ")" : std::string());
}

std::string BackgroundRun::output() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace fp::test
