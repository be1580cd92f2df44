// The framepipe command line: subcommands, exit codes, messages and what is left on disk.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

const char* kSmallPipeline = R"(input: testsrc://96x64@25?noise=10&frames=6
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
  - {id: smooth, type: mean_smooth, radius: 3}
  - {id: out, type: encode, output: out.mp4}
)";

TEST(Cli, HelpAndVersion) {
  auto help = run_framepipe({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* cmd : {"run", "validate", "stages", "probe"}) EXPECT_NE(help.output.find(cmd), std::string::npos);
  auto run_help = run_framepipe({"run", "--help"});
  EXPECT_EQ(run_help.exit_code, 0);
  for (const char* opt : {"--input", "--output", "--set", "--device", "--frames", "--stats-json", "--quiet"})
    EXPECT_NE(run_help.output.find(opt), std::string::npos) << opt;
  auto version = run_framepipe({"--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.output.find("framepipe 0."), std::string::npos);
}

// -v (--verbose) belongs to the whole program, and the options tables in the docs list it with
// the subcommand's: it works before the subcommand and after it, and each subcommand's --help
// shows it.
TEST(Cli, VerboseBeforeOrAfterTheSubcommand) {
  TempDir dir("cli-verbose");
  write_text(dir / "p.yaml", kSmallPipeline);
  const std::vector<std::vector<std::string>> calls = {
      {"run", "p.yaml", "-v", "--frames", "2"}, {"-v", "run", "p.yaml", "--frames", "2"},
      {"run", "p.yaml", "--verbose", "--frames", "2", "--quiet"}, {"validate", "p.yaml", "-v"},
      {"probe", "out.mp4", "-v"}, {"stages", "-v"}};
  for (const auto& args : calls) {
    const auto result = run_framepipe(args, dir.path());
    std::string line;
    for (const auto& a : args) line += " " + a;
    EXPECT_EQ(result.exit_code, 0) << "framepipe" << line << "\n" << result.output;
    // Verbose runs log what they open, which a plain run does not.
    if (args[0] == "run" || args[1] == "run") {
      EXPECT_NE(result.output.find("framepipe: input: 96x64"), std::string::npos) << "framepipe" << line << "\n"
                                                                                   << result.output;
    }
  }
  EXPECT_EQ(run_framepipe({"run", "p.yaml", "--frames", "2"}, dir.path()).output.find("framepipe: input: "),
            std::string::npos);
  for (const char* subcommand : {"run", "validate", "stages", "probe"}) {
    const auto help = run_framepipe({subcommand, "--help"});
    EXPECT_NE(help.output.find("-v,--verbose"), std::string::npos) << subcommand << " --help:\n" << help.output;
  }
}

TEST(Cli, UsageErrorsExitWithTwo) {
  EXPECT_EQ(run_framepipe({}).exit_code, 2);
  EXPECT_EQ(run_framepipe({"frobnicate"}).exit_code, 2);
  EXPECT_EQ(run_framepipe({"run"}).exit_code, 2);
  EXPECT_EQ(run_framepipe({"run", "x.yaml", "--frames", "-3"}).exit_code, 2);
}

TEST(Cli, StagesListsEveryStageAndItsParameters) {
  auto all = run_framepipe({"stages"});
  EXPECT_EQ(all.exit_code, 0);
  for (const char* type : {"decode", "luma_histogram", "mean_smooth", "nlmeans", "pyramid_fusion", "thinning", "encode"})
    EXPECT_NE(all.output.find(type), std::string::npos) << type;
  auto one = run_framepipe({"stages", "nlmeans"});
  EXPECT_EQ(one.exit_code, 0);
  for (const char* text : {"patch", "search", "odd", "[1, 15]", "10"}) EXPECT_NE(one.output.find(text), std::string::npos) << text;
  auto unknown = run_framepipe({"stages", "nlmean"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.output.find("nlmean"), std::string::npos);
}

TEST(Cli, ValidateReportsEveryErrorWithItsPlaceAndCreatesNothing) {
  TempDir dir("cli-validate");
  write_text(dir / "bad.yaml", R"(input: testsrc://64x48
stages:
  - {id: smooth, type: mean_smooth, radius: -2}
  - {id: den, type: nlmeans, h: 0}
  - {id: out, type: encode, output: out.mp4}
)");
  for (const char* cmd : {"validate", "run"}) {
    auto result = run_framepipe({cmd, "bad.yaml"}, dir.path());
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("bad.yaml:3:"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("stages[0].radius"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("bad.yaml:4:"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("stages[1].h"), std::string::npos) << result.output;
    EXPECT_FALSE(fs::exists(dir / "out.mp4"));
  }
  write_text(dir / "good.yaml", kSmallPipeline);
  auto ok = run_framepipe({"validate", "good.yaml"}, dir.path());
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_FALSE(fs::exists(dir / "out.mp4"));
}

TEST(Cli, RunWritesOutputsAndStats) {
  TempDir dir("cli-run");
  write_text(dir / "p.yaml", kSmallPipeline);
  auto result = run_framepipe({"run", "p.yaml", "--stats-json", "stats.json"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("out.mp4"), std::string::npos) << "says where the outputs went";
  EXPECT_EQ(count_frames(dir / "out.mp4"), 6);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), 6);
  std::ifstream in(dir / "stats.json");
  const auto stats = nlohmann::json::parse(in);
  EXPECT_EQ(stats["frames"], 6);
  EXPECT_GT(stats["fps"].get<double>(), 0.0);
  EXPECT_GT(stats["wall_seconds"].get<double>(), 0.0);
  // Set-up and the first frame: part of the run, so no longer than it.
  EXPECT_GT(stats["first_frame_seconds"].get<double>(), 0.0);
  EXPECT_LE(stats["first_frame_seconds"].get<double>(), stats["wall_seconds"].get<double>());
  ASSERT_EQ(stats["stages"].size(), 4u);
  // The graph thread's host time per source and stage (uploads, launches; on the CPU the work).
  EXPECT_GT(stats["stages"][1]["enqueue_us_per_frame"].get<double>(), 0.0);
  EXPECT_EQ(stats["stages"][0]["decoder"], "testsrc");
  EXPECT_EQ(stats["stages"][3]["encoder"], "libx264");
  EXPECT_EQ(stats["stages"][3]["output"], "out.mp4");
  EXPECT_EQ(stats["stages"][2]["frames"], 6);
  EXPECT_EQ(stats["frames_dropped"], 0);
  EXPECT_EQ(stats["stages"][0]["drop"], "never") << "a test source never drops by default";
  EXPECT_EQ(stats["stages"][0]["frames_dropped"], 0);
}

// `--drop` and the file's `drop:`/`realtime:` reach the run; a bad value is a usage error.
TEST(Cli, DropPolicyFromTheFileOrTheCommandLine) {
  TempDir dir("cli-drop");
  write_text(dir / "p.yaml", std::string("realtime: true\ndrop: newest\n") + kSmallPipeline);
  auto result = run_framepipe({"run", "p.yaml", "-q", "--stats-json", "a.json"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(dir / "a.json"))["stages"][0]["drop"], "newest");
  result = run_framepipe({"run", "p.yaml", "-q", "--drop", "oldest", "--stats-json", "b.json"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(dir / "b.json"))["stages"][0]["drop"], "oldest");
  result = run_framepipe({"run", "p.yaml", "--drop", "sideways"}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--drop: must be auto, oldest, newest or never (got 'sideways')"), std::string::npos)
      << result.output;
}

// `--decoder` sets where every decode stage decodes; NVDEC needs the pipeline on a GPU, and
// a bad value is a usage error that names the option. (NVDEC itself: tests/pipeline/test_nvdec.)
TEST(Cli, DecoderOptionReachesEveryDecodeStage) {
  TempDir dir("cli-decoder");
  write_text(dir / "p.yaml", kSmallPipeline);
  ASSERT_EQ(run_framepipe({"run", "p.yaml", "-q"}, dir.path()).exit_code, 0);
  auto result = run_framepipe({"run", "p.yaml", "-i", "out.mp4", "-o", "copy.mp4", "--device", "cpu", "--decoder",
                               "software", "-q", "--stats-json", "s.json"},
                              dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(dir / "s.json"))["stages"][0]["decoder"], "h264 (software)");
  // auto on the CPU decodes in software, without a reason to give
  result = run_framepipe({"run", "p.yaml", "-i", "out.mp4", "-o", "copy.mp4", "--device", "cpu", "-q", "--stats-json",
                          "a.json"},
                         dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(nlohmann::json::parse(std::ifstream(dir / "a.json"))["stages"][0]["decoder"], "h264 (software)");
  result = run_framepipe({"run", "p.yaml", "-i", "out.mp4", "-o", "nv.mp4", "--device", "cpu", "--decoder", "nvdec"},
                         dir.path());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("out.mp4: decode: nvdec needs the pipeline on a GPU"), std::string::npos)
      << result.output;
  EXPECT_FALSE(fs::exists(dir / "nv.mp4"));
  result = run_framepipe({"run", "p.yaml", "--decoder", "sideways"}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("--decoder: must be one of auto|nvdec|software (got 'sideways')"), std::string::npos)
      << result.output;
}

// NVENC: `auto` encodes with h264_nvenc where it opens and with libx264 elsewhere (CI has
// no GPU, the H100 no NVENC), saying why; h264_nvenc asked for by name fails alone where it
// cannot open, naming the output. On a machine with NVENC both write every frame.
TEST(Cli, NvencCodecFallsBackUnderAutoAndFailsAloneByName) {
  TempDir dir("cli-nvenc");
  write_text(dir / "p.yaml", kSmallPipeline);
  auto result = run_framepipe({"run", "p.yaml", "--set", "out.codec=auto", "-q", "--stats-json", "a.json"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(count_frames(dir / "out.mp4"), 6);
  std::string encoder;
  const auto stats = nlohmann::json::parse(std::ifstream(dir / "a.json"));
  for (const auto& stage : stats["stages"])
    if (stage["id"] == "out") encoder = stage["encoder"];
  EXPECT_TRUE(encoder == "h264_nvenc" || encoder.rfind("libx264 (NVENC: h264_nvenc", 0) == 0) << encoder;

  result = run_framepipe({"run", "p.yaml", "--set", "out.codec=h264_nvenc", "-o", "nv.mp4"}, dir.path());
  if (result.exit_code == 0) {
    EXPECT_EQ(count_frames(dir / "nv.mp4"), 6);
  } else {
    EXPECT_EQ(result.exit_code, 1) << result.output;
    EXPECT_NE(result.output.find("out: nv.mp4: cannot open encoder h264_nvenc: no NVENC on this machine"),
              std::string::npos)
        << result.output;
    EXPECT_EQ(count_lines(dir / "hist.jsonl"), 6) << "the other output goes on";
  }
}

TEST(Cli, OverridesReplaceInputOutputAndParameters) {
  TempDir dir("cli-overrides");
  write_text(dir / "p.yaml", kSmallPipeline);
  auto result = run_framepipe({"run", "p.yaml", "-i", "testsrc://64x48@10?frames=3", "-o", "other.mkv", "--set",
                               "smooth.radius=1", "--set", "hist.output=h.csv", "--quiet"},
                              dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(result.output.empty()) << "--quiet prints nothing: " << result.output;
  EXPECT_EQ(count_frames(dir / "other.mkv"), 3);
  EXPECT_EQ(count_lines(dir / "h.csv"), 4);
  EXPECT_FALSE(fs::exists(dir / "out.mp4"));
  auto bad = run_framepipe({"run", "p.yaml", "--set", "smooth.radius=0"}, dir.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.output.find("smooth.radius"), std::string::npos) << bad.output;
}

TEST(Cli, FramesLimitsTheRun) {
  TempDir dir("cli-frames");
  write_text(dir / "p.yaml", kSmallPipeline);
  auto result = run_framepipe({"run", "p.yaml", "--frames", "2", "-q"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(count_frames(dir / "out.mp4"), 2);
}

// Bad input at run time: exit code 1 and one line that names the path; no stack trace.
struct RuntimeErrorCase {
  std::string name;
  std::vector<std::string> override_args;
  std::string path_in_message;
  bool creates_output;  // false: the failure comes before any output is opened
};

class CliRuntimeError : public ::testing::TestWithParam<RuntimeErrorCase> {};

TEST_P(CliRuntimeError, IsOneLineNamingThePath) {
  const auto& c = GetParam();
  TempDir dir("cli-" + c.name);
  write_text(dir / "p.yaml", kSmallPipeline);
  write_text(dir / "notes.mp4", "these are not frames\n");
  std::vector<std::string> args = {"run", "p.yaml"};
  args.insert(args.end(), c.override_args.begin(), c.override_args.end());
  auto result = run_framepipe(args, dir.path());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find(c.path_in_message), std::string::npos) << result.output;
  EXPECT_EQ(std::count(result.output.begin(), result.output.end(), '\n'), 1) << result.output;
  if (!c.creates_output) {
    EXPECT_FALSE(fs::exists(dir / "out.mp4"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    BadInput, CliRuntimeError,
    ::testing::Values(RuntimeErrorCase{"missing_input", {"-i", "no_such_video.mp4"}, "no_such_video.mp4", false},
                      RuntimeErrorCase{"not_a_video", {"-i", "notes.mp4"}, "notes.mp4", false},
                      RuntimeErrorCase{"unwritable_output", {"-o", "no/such/dir/out.mp4"}, "no/such/dir/out.mp4", true}),
    [](const ::testing::TestParamInfo<RuntimeErrorCase>& param_info) { return param_info.param.name; });

// Without a GPU (or without CUDA in the build) bench says what it needs, instead of
// "A subcommand is required" or a bare failure.
TEST(Cli, BenchWithoutAGpuSaysWhatItNeeds) {
  if (!cli_cuda_device().empty()) GTEST_SKIP() << "a GPU is present: bench would run (tools/gpu-check.sh runs it)";
  const auto result = run_framepipe({"bench", "--runs", "1"});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  const bool no_device = result.output.find("bench needs a CUDA device") != std::string::npos;
  const bool no_cuda = result.output.find("this build has no CUDA") != std::string::npos;
  EXPECT_TRUE(no_device || no_cuda) << result.output;
}

// --bounds is auto, ncu or estimate: anything else is a usage error, named, before any GPU is
// asked for (a build without CUDA refuses bench itself, also with 2).
TEST(Cli, BenchBoundsIsAutoNcuOrEstimate) {
  const auto result = run_framepipe({"bench", "--bounds", "roofline", "--runs", "1"});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  const bool named = result.output.find("--bounds") != std::string::npos &&
                     result.output.find("roofline") != std::string::npos;
  const bool no_cuda = result.output.find("this build has no CUDA") != std::string::npos;
  EXPECT_TRUE(named || no_cuda) << result.output;
}

// Every --bounds value is accepted; without a GPU bench then says what it needs.
TEST(Cli, BenchBoundsValuesAreAccepted) {
  if (!cli_cuda_device().empty()) GTEST_SKIP() << "a GPU is present: bench would run (tools/gpu-check.sh runs it)";
  for (const char* bounds : {"auto", "ncu", "estimate"}) {
    const auto result = run_framepipe({"bench", "--bounds", bounds, "--runs", "1"});
    EXPECT_EQ(result.exit_code, 2) << result.output;
    const bool no_device = result.output.find("bench needs a CUDA device") != std::string::npos;
    const bool no_cuda = result.output.find("this build has no CUDA") != std::string::npos;
    EXPECT_TRUE(no_device || no_cuda) << bounds << ": " << result.output;
  }
}

// An unknown --stage (repeatable) is refused before any GPU is asked for.
TEST(Cli, BenchUnknownStageIsAUsageError) {
  const auto result = run_framepipe({"bench", "--stage", "nlmeans", "--stage", "no_such_stage", "--runs", "1"});
  EXPECT_EQ(result.exit_code, 2) << result.output;
  const bool named = result.output.find("--stage no_such_stage: no such kernel") != std::string::npos;
  const bool no_cuda = result.output.find("this build has no CUDA") != std::string::npos;
  EXPECT_TRUE(named || no_cuda) << result.output;
}

TEST(Cli, UnknownDeviceIsAUsageError) {
  TempDir dir("cli-device");
  write_text(dir / "p.yaml", kSmallPipeline);
  auto result = run_framepipe({"run", "p.yaml", "--device", "cuda:7"}, dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("cuda:7"), std::string::npos) << result.output;
  // A CUDA build where the NVIDIA driver is missing (CI's, a package installed without its
  // Recommends) says which library and which package, and that the CPU runs every stage.
  const auto version = run_framepipe({"--version"}, dir.path());
  if (version.output.find("no NVIDIA driver") != std::string::npos) {
    EXPECT_NE(result.output.find("libcuda.so.1 could not be loaded"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("libcuda1"), std::string::npos) << result.output;
    EXPECT_NE(result.output.find("--device cpu runs every stage"), std::string::npos) << result.output;
  }
}

TEST(Cli, ProbeDescribesAFile) {
  TempDir dir("cli-probe");
  write_text(dir / "p.yaml", kSmallPipeline);
  ASSERT_EQ(run_framepipe({"run", "p.yaml", "-q"}, dir.path()).exit_code, 0);
  auto result = run_framepipe({"probe", "out.mp4"}, dir.path());
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("h264"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("96x64"), std::string::npos) << result.output;
  auto missing = run_framepipe({"probe", "nothing.mp4"}, dir.path());
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("nothing.mp4"), std::string::npos);
}

// Ctrl-C stops an endless run; the outputs written so far are finalized and decodable.
TEST(Cli, InterruptFinalizesOutputs) {
  TempDir dir("cli-interrupt");
  write_text(dir / "p.yaml", R"(input: testsrc://96x64@25?frames=0
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
  - {id: out, type: encode, output: out.mp4}
)");
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q"});
  // Frames flow once the histogram has rows; the interrupt then comes mid-run, with a few
  // more frames written.
  ASSERT_TRUE(eventually([&] { return !run.alive() || count_lines(dir / "hist.jsonl") >= 1; }, 10) && run.alive())
      << "no frames flowed, or framepipe ended before the interrupt: " << run.outcome();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(run.catches_within(SIGINT, 10)) << "framepipe ended, or never handled SIGINT: " << run.outcome();
  run.signal(SIGINT);
  ASSERT_EQ(run.wait(time_bound(10)).first, 130) << run.outcome();
  const auto frames = count_frames(dir / "out.mp4");
  EXPECT_GT(frames, 0);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), frames) << "every processed frame reached both outputs";
}

}  // namespace
}  // namespace fp::test
