// Runs the framepipe binary from a test: its exit code and everything it printed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "tests/time_bound.hpp"

namespace fp::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// The framepipe binary under test (FRAMEPIPE_BIN, else build/bin/framepipe).
std::string framepipe_binary();

// Runs framepipe with the arguments (each quoted for the shell) in `cwd`.
CommandResult run_framepipe(const std::vector<std::string>& args, const std::filesystem::path& cwd = ".");
// The same with its data segment (heap and private mappings, `ulimit -d`) limited to
// `kib` KiB and at most two CPU worker threads: for runs that must fail cleanly when
// memory cannot be had.
CommandResult run_framepipe_with_data_limit(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                                            long kib);

// The same, killed after `seconds` (exit code 124, or 137 when it ignored SIGTERM for 5 s):
// for runs that must end on their own, so that a hang fails the test instead of stalling it.
CommandResult run_framepipe_with_timeout(const std::vector<std::string>& args, const std::filesystem::path& cwd,
                                         int seconds);

// A fresh empty directory for one test, removed when the object goes away.
class TempDir {
 public:
  explicit TempDir(const std::string& name);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// What `framepipe --version` answered, asked once per test program; "" when it answered as
// it should (exit 0, its version line and its list of devices), else what went wrong, with
// its output. A binary that crashes or fails there must fail the tests that ask, not pass
// for one without a GPU: "no CUDA device present" is a skip that CI allows.
std::string cli_version_problem();

// The sanitizer the binary under test was built with, as `framepipe --version` says ("built
// with: ThreadSanitizer"). Asked of the binary, not of the test's compiler: a test that
// drives framepipe as a child process may be a release binary run against a sanitizer
// build's framepipe (CHILD_PROCESS, tests/CMakeLists.txt). Throws as cli_cuda_device() does.
enum class CliSanitizer { None, Address, Thread };
CliSanitizer cli_sanitizer();
inline bool cli_under_sanitizer() { return cli_sanitizer() != CliSanitizer::None; }

// The CUDA device the binary can use, as `framepipe --version` lists it ("cuda:0"), or ""
// when it lists none (no GPU, or built without CUDA). Throws std::runtime_error (failing the
// test, with cli_version_problem()) when --version itself did not answer as it should.
std::string cli_cuda_device();

// Skips the test with the reason when the binary has no CUDA device; fails it when
// `framepipe --version` crashed or failed, since then whether there is a GPU is unknown.
#define FP_REQUIRE_CLI_GPU()                                                                       \
  do {                                                                                             \
    if (const auto fp_version_problem = ::fp::test::cli_version_problem(); !fp_version_problem.empty()) \
      FAIL() << fp_version_problem;                                                                \
    if (::fp::test::cli_cuda_device().empty())                                                     \
      GTEST_SKIP() << "no CUDA device present (framepipe --version lists none, or CUDA not built)"; \
  } while (0)

// time_bound(seconds): tests/time_bound.hpp.

// Frames in a video file, counted by decoding it with framepipe's own media layer.
long long count_frames(const std::filesystem::path& video);
// Lines of a text file.
long long count_lines(const std::filesystem::path& file);

}  // namespace fp::test
