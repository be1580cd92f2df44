// Output faults through the CLI: an output that cannot be written (a full disk, /dev/full, a
// missing or read-only directory) ends the run with exit 1 and a message naming the file,
// the stage and the reason, never a hang or std::terminate; every other output of the run
// is finalized with every frame. Each run is bounded in time.
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_runner.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

constexpr int kTimeoutSeconds = 60;
constexpr int kFrames = 12;

// A pipeline with a histogram and two encodes of the same frames; `marks` are replaced.
std::string pipeline(int frames, const std::string& hist, const std::string& bad_output) {
  std::string text = "input: testsrc://160x120@25?noise=10&frames=" + std::to_string(frames) +
                     "\nstages:\n  - {id: hist, type: luma_histogram, output: " + hist + "}\n";
  if (!bad_output.empty()) text += "  - {id: bad, type: encode, input: hist, output: " + bad_output + "}\n";
  text += "  - {id: good, type: encode, input: hist, output: good.mkv}\n";
  return text;
}

// The run failed cleanly: exit 1 (not a signal, not a timeout), the reason named.
void expect_clean_failure(const CommandResult& result, const std::vector<std::string>& named) {
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_FALSE(contains(result.output, "terminate")) << result.output;
  for (const auto& part : named) EXPECT_TRUE(contains(result.output, part)) << "names " << part << ":\n" << result.output;
}

// ---- /dev/full as every kind of output ---------------------------------------------------

struct FullCase {
  std::string name;
  std::string link;     // a name in the run's directory linked to /dev/full ("" for none)
  bool histogram;       // the link is the histogram's output (else a second encode's)
  std::string stage;    // the stage the message must name
};

class OutputToDevFull : public ::testing::TestWithParam<FullCase> {};

TEST_P(OutputToDevFull, FailsNamingItAndTheOtherOutputsAreComplete) {
  const auto& c = GetParam();
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "this system has no /dev/full";
  TempDir dir("full-" + c.name);
  // The container follows the extension, so /dev/full gets one through a link.
  fs::create_symlink("/dev/full", dir / c.link);
  write_text(dir / "p.yaml", c.histogram ? pipeline(kFrames, c.link, "") : pipeline(kFrames, "hist.jsonl", c.link));
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, {c.link, c.stage, std::strerror(ENOSPC)});
  EXPECT_EQ(count_frames(dir / "good.mkv"), kFrames);
  if (!c.histogram) {
    EXPECT_EQ(count_lines(dir / "hist.jsonl"), kFrames);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, OutputToDevFull,
    ::testing::Values(FullCase{"y4m", "full.y4m", false, "bad"}, FullCase{"mp4", "full.mp4", false, "bad"},
                      FullCase{"mkv", "full.mkv", false, "bad"}, FullCase{"ts", "full.ts", false, "bad"},
                      FullCase{"jsonl", "full.jsonl", true, "hist"}, FullCase{"csv", "full.csv", true, "hist"}),
    [](const ::testing::TestParamInfo<FullCase>& param_info) { return param_info.param.name; });

// The histogram's rows and several encodes fail at once: each encode's thread asks whether
// every output has failed (to word its message) while the graph's thread is the one that
// sees the histogram fail. Under ThreadSanitizer (the CI's CPU suite) this is the test that
// shows whether that question reads the histogram's state without the executor's lock.
TEST(OutputFaults, AHistogramAndEncodesFailingTogetherLeaveTheRestComplete) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "this system has no /dev/full";
  TempDir dir("full-together");
  constexpr int kManyFrames = 60;
  std::string text = "input: testsrc://160x120@25?noise=10&frames=" + std::to_string(kManyFrames) +
                     "\nstages:\n  - {id: hist, type: luma_histogram, output: full.jsonl}\n";
  std::vector<std::string> named = {"full.jsonl", "hist: "};
  for (int i = 0; i < 4; ++i) {
    const std::string link = "full" + std::to_string(i) + ".y4m";
    fs::create_symlink("/dev/full", dir / link);
    text += "  - {id: bad" + std::to_string(i) + ", type: encode, input: hist, output: " + link + "}\n";
    named.push_back(link);
  }
  text += "  - {id: good, type: encode, input: hist, output: good.mkv}\n";
  fs::create_symlink("/dev/full", dir / "full.jsonl");
  write_text(dir / "p.yaml", text);
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, named);
  EXPECT_EQ(count_frames(dir / "good.mkv"), kManyFrames);
}

TEST(OutputFaults, StatsJsonToDevFullFailsAfterTheOutputsAreComplete) {
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "this system has no /dev/full";
  TempDir dir("full-stats");
  write_text(dir / "p.yaml", pipeline(kFrames, "hist.jsonl", ""));
  const auto result =
      run_framepipe_with_timeout({"run", "p.yaml", "-q", "--stats-json", "/dev/full"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, {"/dev/full", "--stats-json", std::strerror(ENOSPC)});
  EXPECT_EQ(count_frames(dir / "good.mkv"), kFrames);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), kFrames);
}

// ---- a file system that fills up mid-run ------------------------------------------------

// A tmpfs mounted for one test (root only), unmounted when the test ends.
class Mount {
 public:
  Mount(const fs::path& where, const std::string& options) : where_(where) {
    fs::create_directories(where);
    if (mount("tmpfs", where.c_str(), "tmpfs", 0, options.c_str()) == 0)
      mounted_ = true;
    else
      error_ = std::strerror(errno);
  }
  ~Mount() {
    if (mounted_) umount2(where_.c_str(), MNT_DETACH);
  }
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;
  bool mounted() const { return mounted_; }
  const std::string& error() const { return error_; }

 private:
  fs::path where_;
  bool mounted_ = false;
  std::string error_;
};

#define FP_REQUIRE_MOUNT(m, what)                                                                        \
  do {                                                                                                   \
    if (!(m).mounted())                                                                                  \
      GTEST_SKIP() << "cannot mount " what " here (" << (m).error() << "; needs root or CAP_SYS_ADMIN)"; \
  } while (0)

TEST(OutputFaults, AFileSystemThatFillsUpFailsThatOutputOnly) {
  TempDir dir("full-tmpfs");
  Mount small(dir / "small", "size=256k");
  FP_REQUIRE_MOUNT(small, "a 256 KiB tmpfs");
  constexpr int kManyFrames = 40;  // 40 raw 160x120 frames: 1.1 MiB, four times the room
  write_text(dir / "p.yaml", pipeline(kManyFrames, "hist.jsonl", "small/out.y4m"));
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, {"small/out.y4m", "bad", std::strerror(ENOSPC)});
  EXPECT_EQ(count_frames(dir / "good.mkv"), kManyFrames);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), kManyFrames);
}

TEST(OutputFaults, AHistogramOnAFileSystemThatFillsUpFailsThatOutputOnly) {
  TempDir dir("full-tmpfs-csv");
  Mount small(dir / "small", "size=64k");
  FP_REQUIRE_MOUNT(small, "a 64 KiB tmpfs");
  constexpr int kManyFrames = 300;  // rows of about 600 bytes: 180 KiB
  write_text(dir / "p.yaml", pipeline(kManyFrames, "small/hist.csv", "out.y4m"));
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, {"small/hist.csv", "hist", std::strerror(ENOSPC)});
  EXPECT_EQ(count_frames(dir / "good.mkv"), kManyFrames);
  EXPECT_EQ(count_frames(dir / "out.y4m"), kManyFrames);
}

// ---- outputs that cannot be created -----------------------------------------------------

// Nothing is left in the run's directory but the pipeline (and what the test put there).
void expect_no_outputs(const fs::path& dir) {
  for (const auto& name : {"hist.jsonl", "good.mkv", "out.y4m", "stats.json"})
    EXPECT_FALSE(fs::exists(dir / name)) << name << " was created";
}

TEST(OutputFaults, MissingDirectoryOnTheCommandLineFailsBeforeAnything) {
  TempDir dir("nodir-cli");
  write_text(dir / "p.yaml", pipeline(kFrames, "hist.jsonl", "out.y4m"));
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-o", "/nonexistent/dir/out.mp4"}, dir.path(),
                                                 kTimeoutSeconds);
  expect_clean_failure(result, {"/nonexistent/dir/out.mp4", "bad", std::strerror(ENOENT)});
  expect_no_outputs(dir.path());
}

TEST(OutputFaults, MissingDirectoryInTheFileFailsBeforeAnything) {
  TempDir dir("nodir-yaml");
  // The histogram is set up before the encoders, the later encode's directory is missing.
  write_text(dir / "p.yaml", pipeline(kFrames, "hist.jsonl", "no/such/dir/out.mp4"));
  const auto result = run_framepipe_with_timeout({"run", "p.yaml"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, {"no/such/dir/out.mp4", "bad", std::strerror(ENOENT)});
  expect_no_outputs(dir.path());
  write_text(dir / "q.yaml", pipeline(kFrames, "no/such/hist.jsonl", "out.y4m"));
  const auto hist = run_framepipe_with_timeout({"run", "q.yaml"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(hist, {"no/such/hist.jsonl", "hist", std::strerror(ENOENT)});
  expect_no_outputs(dir.path());
}

TEST(OutputFaults, MissingDirectoryForStatsFailsBeforeAnything) {
  TempDir dir("nodir-stats");
  write_text(dir / "p.yaml", pipeline(kFrames, "hist.jsonl", "out.y4m"));
  const auto result =
      run_framepipe_with_timeout({"run", "p.yaml", "--stats-json", "no/dir/stats.json"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, {"no/dir/stats.json", "--stats-json", std::strerror(ENOENT)});
  expect_no_outputs(dir.path());
}

TEST(OutputFaults, ParentThatIsAFileFailsBeforeAnything) {
  TempDir dir("notdir");
  write_text(dir / "plain", "a file, not a directory\n");
  write_text(dir / "p.yaml", pipeline(kFrames, "hist.jsonl", "out.y4m"));
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-o", "plain/out.mp4"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, {"plain/out.mp4", "bad", std::strerror(ENOTDIR)});
  expect_no_outputs(dir.path());
}

TEST(OutputFaults, ReadOnlyDirectoryFailsBeforeAnything) {
  TempDir dir("rodir");
  Mount read_only(dir / "ro", "ro");
  FP_REQUIRE_MOUNT(read_only, "a read-only tmpfs");
  write_text(dir / "p.yaml", pipeline(kFrames, "hist.jsonl", "out.y4m"));
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-o", "ro/out.mp4"}, dir.path(), kTimeoutSeconds);
  expect_clean_failure(result, {"ro/out.mp4", "bad", std::strerror(EROFS)});
  expect_no_outputs(dir.path());
}

}  // namespace
}  // namespace fp::test
