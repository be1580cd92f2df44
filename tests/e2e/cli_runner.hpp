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

// The CUDA device the binary can use, as `framepipe --version` lists it ("cuda:0"), or ""
// when it has none (no GPU, or built without CUDA). Asked once per test program.
std::string cli_cuda_device();

// Skips the test with the reason when the binary has no CUDA device.
#define FP_REQUIRE_CLI_GPU()                                                                       \
  do {                                                                                             \
    if (::fp::test::cli_cuda_device().empty())                                                     \
      GTEST_SKIP() << "no CUDA device present (framepipe --version lists none, or CUDA not built)"; \
  } while (0)

// time_bound(seconds): tests/time_bound.hpp.

// Frames in a video file, counted by decoding it with framepipe's own media layer.
long long count_frames(const std::filesystem::path& video);
// Lines of a text file.
long long count_lines(const std::filesystem::path& file);

}  // namespace fp::test
