// Finding ncu, running it bounded in time, and saying why a run is of no use (a stand-in
// script plays ncu: the real one needs a GPU).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "tools/framepipe/bench/ncu_runner.hpp"

namespace fp::bench {
namespace {

namespace fs = std::filesystem;

class Dir {
 public:
  Dir() {
    std::string pattern = (fs::temp_directory_path() / "test-ncu-runner-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~Dir() { fs::remove_all(path_); }
  fs::path operator/(const char* name) const { return path_ / name; }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

void write_script(const fs::path& path, const std::string& body) {
  std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
  fs::permissions(path, fs::perms::owner_all);
}

TEST(FindNcu, PathFirstThenTheToolkit) {
  Dir a;
  Dir b;
  Dir toolkit;
  write_script(b / "ncu", "exit 0");
  write_script(toolkit / "ncu", "exit 0");
  EXPECT_EQ(find_ncu(a.str() + ":" + b.str(), (toolkit / "ncu").string()), (b / "ncu").string());
  EXPECT_EQ(find_ncu(a.str(), (toolkit / "ncu").string()), (toolkit / "ncu").string());
  EXPECT_FALSE(find_ncu(a.str(), (a / "ncu").string()).has_value());
  // Not executable: not ncu.
  std::ofstream(a / "ncu") << "text";
  EXPECT_FALSE(find_ncu(a.str(), "").has_value());
}

TEST(RunWithTimeout, ExitCodeAndOutput) {
  const auto r = run_with_timeout({"sh", "-c", "echo out; echo err >&2; exit 3"}, 30);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.output.find("out"), std::string::npos);
  EXPECT_NE(r.output.find("err"), std::string::npos);
}

TEST(RunWithTimeout, AMissingProgramIs127) {
  const auto r = run_with_timeout({"/no/such/ncu"}, 30);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("/no/such/ncu"), std::string::npos);
}

TEST(RunWithTimeout, TheWholeProcessGroupIsKilledAtTheTimeout) {
  // The grandchild holds the output pipe open as a profiled program would.
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_with_timeout({"sh", "-c", "sleep 30 & sleep 30"}, 0.5);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(seconds, 10);
  EXPECT_EQ(r.exit_code, 128 + 9);
}

TEST(NcuFailure, PermissionErrorNamesTheFix) {
  ChildResult r;
  r.exit_code = 0;
  const std::string log =
      "==PROF== Connected to process 1\n"
      "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters "
      "on the target device 0.\n";
  const auto why = ncu_failure(r, log, 60);
  EXPECT_NE(why.find("ERR_NVGPUCTRPERM"), std::string::npos) << why;
  EXPECT_NE(why.find("NVreg_RestrictProfilingToAdminUsers"), std::string::npos) << why;
}

TEST(NcuFailure, TimeoutExitAndSuccess) {
  ChildResult r;
  r.timed_out = true;
  EXPECT_NE(ncu_failure(r, "", 60).find("60 s"), std::string::npos);
  r.timed_out = false;
  r.exit_code = 1;
  r.output = "first\n==PROF== something\nthe last line\n";
  EXPECT_EQ(ncu_failure(r, "", 60), "ncu exited with status 1: the last line");
  r.exit_code = 0;
  EXPECT_EQ(ncu_failure(r, "\"ID\",\"Kernel Name\"\n", 60), "");
  r.output = "==ERROR== Failed to find metric sm__no_such_metric\n";
  EXPECT_EQ(ncu_failure(r, "", 60), "==ERROR== Failed to find metric sm__no_such_metric");
}

}  // namespace
}  // namespace fp::bench
