#include "tests/e2e/background_run.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <thread>

#include "tests/e2e/cli_runner.hpp"

namespace fp::test {

BackgroundRun::BackgroundRun(const std::filesystem::path& cwd, const std::vector<std::string>& args)
    : BackgroundRun(cwd, framepipe_binary(), args, "framepipe.log") {}

BackgroundRun::BackgroundRun(const std::filesystem::path& cwd, const std::string& program,
                             const std::vector<std::string>& args, const std::string& log_name)
    : log_(cwd / log_name) {
  const std::string& bin = program;
  const std::string log = log_.string();
  pid_ = fork();
  if (pid_ == 0) {
    if (chdir(cwd.c_str()) != 0) _exit(99);
    const int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) _exit(97);
    std::vector<char*> argv{const_cast<char*>(bin.c_str())};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execvp(bin.c_str(), argv.data());  // a program without a path is looked for on PATH
    _exit(98);
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

std::string BackgroundRun::output() const {
  std::ifstream in(log_);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace fp::test
