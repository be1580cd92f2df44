// Outputs that are pipes: a FIFO whose reader goes away (a player closed, `head -c`) fails
// that output alone with "Broken pipe" (exit 1, the output named), instead of SIGPIPE
// killing the process (exit 141) before the other outputs are finalized. Real processes:
// framepipe and a reader that stops after a few bytes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

constexpr int kPipeFrames = 300;  // far more than a pipe holds (64 KiB): the writes outlast the reader
constexpr int kPipeTimeoutSeconds = 60;

struct PipeCase {
  std::string name;
  std::string fifo;  // the FIFO's name in the run's directory (its extension picks the format)
  bool histogram;    // the FIFO is the histogram's rows (else an encode's output)
  std::string stage; // the stage the error must name
};

class OutputToAPipeWhoseReaderLeaves : public ::testing::TestWithParam<PipeCase> {};

TEST_P(OutputToAPipeWhoseReaderLeaves, FailsAloneAndTheOtherOutputsAreComplete) {
  const auto& c = GetParam();
  TempDir dir("pipe-" + c.name);
  ASSERT_EQ(mkfifo((dir / c.fifo).c_str(), 0600), 0) << std::strerror(errno);
  std::string pipeline = "input: testsrc://160x120@25?noise=10&frames=" + std::to_string(kPipeFrames) + "\nstages:\n";
  pipeline += "  - {id: hist, type: luma_histogram, output: " + std::string(c.histogram ? c.fifo : "hist.jsonl") + "}\n";
  if (!c.histogram) pipeline += "  - {id: pipe, type: encode, input: hist, output: " + c.fifo + "}\n";
  pipeline += "  - {id: file, type: encode, input: hist, output: good.mp4}\n";
  std::ofstream(dir / "p.yaml") << pipeline;
  // The reader takes a few bytes and goes away, as a player that is closed does.
  BackgroundRun reader(dir.path(), "sh", {"-c", "head -c 1000 " + c.fifo + " > /dev/null"}, "reader.log");
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), kPipeTimeoutSeconds);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  for (const std::string& part : {c.fifo, c.stage + ": ", std::string(std::strerror(EPIPE))})
    EXPECT_TRUE(contains(result.output, part)) << "names " << part << ":\n" << result.output;
  // The mp4 beside it was finalized (its index written): every frame decodes.
  EXPECT_EQ(count_frames(dir / "good.mp4"), kPipeFrames);
  if (!c.histogram) {
    EXPECT_EQ(count_lines(dir / "hist.jsonl"), kPipeFrames);
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryKind, OutputToAPipeWhoseReaderLeaves,
    ::testing::Values(PipeCase{"ts", "live.ts", false, "pipe"}, PipeCase{"y4m", "raw.y4m", false, "pipe"},
                      PipeCase{"jsonl", "rows.jsonl", true, "hist"}),
    [](const ::testing::TestParamInfo<PipeCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace fp::test
