#include "tests/e2e/cli_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "media/frame_source.hpp"

namespace fp::test {

namespace {
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out.append("'\\''");
    else
      out.push_back(c);
  }
  out.push_back('\'');
  return out;
}
}  // namespace

std::string framepipe_binary() {
  if (const char* env = std::getenv("FRAMEPIPE_BIN")) return env;
  return std::string(FRAMEPIPE_BINARY_DIR) + "/bin/framepipe";
}

namespace {
CommandResult run_shell(const std::string& prefix, const std::vector<std::string>& args,
                        const std::filesystem::path& cwd) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "literal" + std::string&&.
  std::string command = "cd ";
  command += shell_quote(cwd.string());
  command += " && ";
  command += prefix;
  command += shell_quote(framepipe_binary());
  for (const auto& a : args) {
    command += ' ';
    command += shell_quote(a);
  }
  command += " 2>&1";
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  std::array<char, 4096> buffer{};
  std::size_t n = 0;
  while ((n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0) result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}
}  // namespace

CommandResult run_framepipe(const std::vector<std::string>& args, const std::filesystem::path& cwd) {
  return run_shell("", args, cwd);
}

CommandResult run_framepipe_with_data_limit(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                                            long kib) {
  return run_shell("ulimit -d " + std::to_string(kib) + " && FRAMEPIPE_THREADS=2 exec ", args, cwd);
}

CommandResult run_framepipe_with_timeout(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                                         int seconds) {
  return run_shell("exec timeout -k 5 " + std::to_string(seconds) + " ", args, cwd);
}

TempDir::TempDir(const std::string& name) {
  path_ = std::filesystem::path(FRAMEPIPE_BINARY_DIR) / "test-output" / (name + "-" + std::to_string(getpid()));
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

long long count_frames(const std::filesystem::path& video) {
  auto source = open_source(video.string());
  long long frames = 0;
  while (source->read()) ++frames;
  return frames;
}

long long count_lines(const std::filesystem::path& file) {
  std::ifstream in(file);
  long long lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

namespace {
struct VersionAnswer {
  std::string problem;  // "" when --version answered as it should
  std::string cuda_device;
  CliSanitizer sanitizer = CliSanitizer::None;
};

const VersionAnswer& version_answer() {
  static const VersionAnswer answer = [] {
    // Bounded: a --version that hangs (in a driver's initialization, say) fails the tests
    // that ask instead of stalling them.
    const auto result = run_framepipe_with_timeout({"--version"}, ".", static_cast<int>(time_bound(60)));
    VersionAnswer a;
    // Its first line names it ("framepipe 0.1.0 (commit)"), and its list of devices starts
    // with the CPU, which every build has; a line "  cuda:N  NAME ..." follows per GPU.
    const bool version = result.output.rfind("framepipe ", 0) == 0;
    const bool devices = result.output.find("\ndevices:\n  cpu") != std::string::npos;
    if (result.exit_code != 0 || !version || !devices)
      a.problem = "`" + framepipe_binary() + " --version` did not answer as it should (" +
                  (result.exit_code == -1    ? std::string("ended by a signal")
                   : result.exit_code == 124 ? std::string("did not end within its time bound")
                                             : "exit " + std::to_string(result.exit_code)) +
                  (version ? "" : ", no version line") + (devices ? "" : ", no list of devices") +
                  "), so whether it has a CUDA device is unknown; its output:\n" + result.output;
    else if (result.output.find("\n  cuda:0 ") != std::string::npos)
      a.cuda_device = "cuda:0";
    if (result.output.find("\nbuilt with: ThreadSanitizer\n") != std::string::npos)
      a.sanitizer = CliSanitizer::Thread;
    else if (result.output.find("\nbuilt with: AddressSanitizer\n") != std::string::npos)
      a.sanitizer = CliSanitizer::Address;
    return a;
  }();
  return answer;
}
}  // namespace

std::string cli_version_problem() { return version_answer().problem; }

CliSanitizer cli_sanitizer() {
  const auto& answer = version_answer();
  if (!answer.problem.empty()) throw std::runtime_error(answer.problem);
  return answer.sanitizer;
}

std::string cli_cuda_device() {
  const auto& answer = version_answer();
  if (!answer.problem.empty()) throw std::runtime_error(answer.problem);
  return answer.cuda_device;
}

}  // namespace fp::test
