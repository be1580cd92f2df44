#include "tools/framepipe/bench/ncu_runner.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>

namespace fp::bench {

namespace {

bool executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

constexpr std::size_t kKeptOutput = 64 * 1024;

}  // namespace

std::optional<std::string> find_ncu(std::string_view path_env, const std::string& fallback) {
  std::size_t begin = 0;
  while (begin <= path_env.size()) {
    auto end = path_env.find(':', begin);
    if (end == std::string_view::npos) end = path_env.size();
    // An empty PATH entry is the current directory.
    const std::string candidate = end > begin ? std::string(path_env.substr(begin, end - begin)) + "/ncu" : "./ncu";
    if (executable_file(candidate)) return candidate;
    begin = end + 1;
  }
  if (!fallback.empty() && executable_file(fallback)) return fallback;
  return std::nullopt;
}

ChildResult run_with_timeout(const std::vector<std::string>& argv, double timeout_s) {
  if (argv.empty()) throw std::runtime_error("run_with_timeout: no command");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // Made before fork, like args: the child of a threaded process (bench has the CUDA
  // runtime's threads) may call only async-signal-safe functions until it execs, so it
  // must not allocate.
  const std::string cannot_run = fmt::format("cannot run {}: ", argv[0]);

  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    // Its own process group: the timeout ends ncu and the program it profiles together.
    ::setpgid(0, 0);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::execvp(args[0], args.data());
    const char* why = strerrordesc_np(errno);  // a constant string: no allocation, no locale
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, cannot_run.data(), cannot_run.size());
    if (why != nullptr) n = ::write(STDERR_FILENO, why, std::strlen(why));
    n = ::write(STDERR_FILENO, "\n", 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here, so that the group exists before any kill below
  ::close(fds[1]);

  ChildResult result;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const auto n = ::read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // every writer closed: the child (and what it started) is done writing
    result.output.append(buffer, static_cast<std::size_t>(n));
    if (result.output.size() > 2 * kKeptOutput) result.output.erase(0, result.output.size() - kKeptOutput);
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (result.output.size() > kKeptOutput) result.output.erase(0, result.output.size() - kKeptOutput);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string ncu_failure(const ChildResult& result, std::string_view log, double timeout_s) {
  if (result.timed_out) return fmt::format("ncu did not finish in {:g} s (--ncu-timeout)", timeout_s);
  for (const std::string_view text : {log, std::string_view(result.output)}) {
    const auto at = text.find("==ERROR==");
    if (at == std::string_view::npos) continue;
    auto line = text.substr(at, text.find('\n', at) - at);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.find("ERR_NVGPUCTRPERM") != std::string_view::npos)
      return fmt::format("{} (no permission for the GPU's performance counters: run as root, or load the "
                         "driver with NVreg_RestrictProfilingToAdminUsers=0)",
                         line);
    return std::string(line);
  }
  if (result.exit_code != 0) {
    auto tail = std::string_view(result.output);
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r')) tail.remove_suffix(1);
    const auto last_line = tail.substr(tail.rfind('\n') == std::string_view::npos ? 0 : tail.rfind('\n') + 1);
    return fmt::format("ncu exited with status {}{}{}", result.exit_code, last_line.empty() ? "" : ": ", last_line);
  }
  return "";
}

}  // namespace fp::bench
