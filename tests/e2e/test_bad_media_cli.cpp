// Bad media through the CLI: every input either runs to the end with what can be decoded
// (exit 0, the damage counted in the summary and --stats-json) or ends with exit code 1
// and one line naming the file (and the position), its outputs finalized with the frames
// that came before. Inputs are made by the test (FFmpeg's encoders, then damaged).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <regex>

#include "tests/e2e/cli_runner.hpp"
#include "tests/media/test_media_files.hpp"

extern "C" {
#include <libavformat/avformat.h>
}

namespace fp::test {
namespace {

namespace fs = std::filesystem;

// The input comes from -i; every output is one the tests count frames or lines in.
const char* kPipeline = R"(input: testsrc://64x48?frames=1
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: out.mp4}
)";

void write_pipeline(const TempDir& dir, const std::string& text = kPipeline) {
  std::ofstream(dir / "p.yaml") << text;
}

nlohmann::json read_json(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

long long count_lines_of(const CommandResult& result) {
  return std::count(result.output.begin(), result.output.end(), '\n');
}

#define FP_REQUIRE_WRITER(spec)                                                              \
  do {                                                                                       \
    if (const std::string why = cannot_write(spec); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

// Inputs nothing can be decoded from: exit 1, one line naming the file, no output made.
struct UnreadableCase {
  std::string name;
  std::string file;
  std::function<bool(const std::string&)> make;  // false: this FFmpeg cannot make it
  std::string reason;                            // in the message after the path
};

class CliUnreadableInput : public ::testing::TestWithParam<UnreadableCase> {};

TEST_P(CliUnreadableInput, ExitsWithOneLineNamingTheFile) {
  const auto& c = GetParam();
  TempDir dir("cli-bad-" + c.name);
  write_pipeline(dir);
  if (!c.make((dir / c.file).string())) GTEST_SKIP() << "this FFmpeg cannot make the input file";
  const auto result = run_framepipe({"run", "p.yaml", "-i", c.file}, dir.path());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(result.output.rfind("framepipe: error: " + c.file + ": " + c.reason, 0), 0u) << result.output;
  EXPECT_EQ(count_lines_of(result), 1) << result.output;
  EXPECT_FALSE(fs::exists(dir / "out.mp4"));
  EXPECT_FALSE(fs::exists(dir / "hist.jsonl"));
}

INSTANTIATE_TEST_SUITE_P(
    BadMedia, CliUnreadableInput,
    ::testing::Values(
        UnreadableCase{"empty", "empty.mp4", [](const std::string& p) { write_bytes(p, {}); return true; },
                       "the file is empty (0 bytes)"},
        UnreadableCase{"random_bytes", "noise.mp4",
                       [](const std::string& p) {
                         std::vector<char> bytes(64 * 1024);
                         std::mt19937 random(5);
                         for (char& b : bytes) b = static_cast<char>(random());
                         write_bytes(p, bytes);
                         return true;
                       },
                       ""},
        UnreadableCase{"mp4_cut_before_index", "cut.mp4",
                       [](const std::string& p) {
                         const VideoWriteSpec spec{.muxer = "mp4", .encoder_options = "preset=ultrafast"};
                         if (!cannot_write(spec).empty()) return false;
                         write_video(spec, p, testsrc_frames(96, 64, 20));
                         truncate_file(p, 0.5);
                         return true;
                       },
                       ""},
        UnreadableCase{"audio_only", "sound.wav",
                       [](const std::string& p) {
                         // The GPU machine's minimal FFmpeg reads no wav: it would be "not a video".
                         if (av_find_input_format("wav") == nullptr) return false;
                         write_silent_wav(p);
                         return true;
                       },
                       "no video stream"}),
    [](const ::testing::TestParamInfo<UnreadableCase>& param_info) { return param_info.param.name; });

// A faststart mp4 cut mid-file: the frames before the cut are processed and written (skip),
// or the run stops at the cut packet with exit 1 and its outputs finalized (stop).
TEST(CliBadMedia, FaststartMp4CutMidFile) {
  const VideoWriteSpec spec{
      .muxer = "mp4", .encoder_options = "preset=ultrafast", .muxer_options = "movflags=+faststart", .gop = 10};
  FP_REQUIRE_WRITER(spec);
  TempDir dir("cli-bad-faststart");
  write_pipeline(dir);
  write_video(spec, (dir / "cut.mp4").string(), testsrc_frames(96, 64, 50));
  truncate_file((dir / "cut.mp4").string(), 0.6);
  const long long decodable = count_frames(dir / "cut.mp4");
  ASSERT_GT(decodable, 10);
  ASSERT_LT(decodable, 50);

  const auto skip = run_framepipe({"run", "p.yaml", "-i", "cut.mp4", "--stats-json", "stats.json"}, dir.path());
  ASSERT_EQ(skip.exit_code, 0) << skip.output;
  EXPECT_EQ(count_frames(dir / "out.mp4"), decodable);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), decodable);
  EXPECT_NE(skip.output.find("framepipe: cut.mp4: damaged input at packet "), std::string::npos) << skip.output;
  EXPECT_NE(skip.output.find("  input: skipped 1 damaged packet; the first at packet "), std::string::npos)
      << skip.output;
  const auto errors = read_json(dir / "stats.json")["stages"][0]["decode_errors"];
  EXPECT_EQ(errors["damaged_packets"], 1);
  EXPECT_GE(errors["first"][0]["packet"].get<int>(), 10);
  EXPECT_GT(errors["first"][0]["time"].get<double>(), 0.0);

  fs::remove(dir / "out.mp4");
  const auto stop = run_framepipe({"run", "p.yaml", "-i", "cut.mp4", "--set", "input.on_error=stop"}, dir.path());
  EXPECT_EQ(stop.exit_code, 1) << stop.output;
  EXPECT_NE(stop.output.find("framepipe: error: cut.mp4: stream #0 (h264): damaged packet "), std::string::npos)
      << stop.output;
  EXPECT_EQ(count_lines_of(stop), 1) << stop.output;
  const long long written = count_frames(dir / "out.mp4");  // finalized: it opens and decodes
  EXPECT_GT(written, 0);
  EXPECT_LE(written, decodable);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), written);
}

// Bit errors in the middle of an H.264 transport stream: the run goes on to the end (skip),
// or stops at the first damage naming its position, with every frame before it written.
TEST(CliBadMedia, BitErrorsInTransportStream) {
  const VideoWriteSpec spec{.muxer = "mpegts", .encoder_options = "preset=ultrafast", .gop = 25};
  FP_REQUIRE_WRITER(spec);
  TempDir dir("cli-bad-ts");
  write_pipeline(dir);
  write_video(spec, (dir / "noisy.ts").string(), testsrc_frames(96, 64, 100));
  damage_middle((dir / "noisy.ts").string(), 8, 100, 7);

  const auto skip = run_framepipe({"run", "p.yaml", "-i", "noisy.ts", "--stats-json", "stats.json"}, dir.path());
  ASSERT_EQ(skip.exit_code, 0) << skip.output;
  const long long frames = count_frames(dir / "out.mp4");
  EXPECT_GE(frames, 50);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), frames);
  const auto stats = read_json(dir / "stats.json");
  EXPECT_EQ(stats["frames"], frames);
  const auto errors = stats["stages"][0]["decode_errors"];
  EXPECT_GE(errors["damaged_packets"].get<int>() + errors["damaged_frames"].get<int>(), 1) << errors;
  EXPECT_NE(skip.output.find("framepipe: noisy.ts: damaged input at "), std::string::npos) << skip.output;
  EXPECT_NE(skip.output.find("  input: skipped "), std::string::npos) << skip.output;

  // `on_error` in the file this time, through the map form of the top-level input.
  write_pipeline(dir, std::string("input: {uri: noisy.ts, on_error: stop}\n") +
                          std::string(kPipeline).substr(std::string(kPipeline).find('\n') + 1));
  fs::remove(dir / "out.mp4");
  const auto stop = run_framepipe({"run", "p.yaml"}, dir.path());
  EXPECT_EQ(stop.exit_code, 1) << stop.output;
  EXPECT_EQ(count_lines_of(stop), 1) << stop.output;
  std::smatch m;
  const std::regex pattern(
      R"(framepipe: error: noisy\.ts: stream #0 \(h264\): (damaged packet|frame) (\d+) \(\d+\.\d{3} s\).*\(on_error: stop\)\n)");
  ASSERT_TRUE(std::regex_search(stop.output, m, pattern)) << stop.output;
  const long long written = count_frames(dir / "out.mp4");
  EXPECT_GE(written, 10);
  EXPECT_LT(written, frames);
  // A damaged frame N: frames 0..N-1 went through the pipeline, all of them.
  if (m[1] == "frame") {
    EXPECT_EQ(written, std::stoll(m[2])) << stop.output;
  }
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), written);
}

// Single bit errors that the decoder conceals: under `stop` the run ends at the first
// damaged frame N, and exactly the frames 0..N-1 before it are in the outputs.
TEST(CliBadMedia, StopAtADamagedFrameKeepsEveryFrameBeforeIt) {
  const VideoWriteSpec spec{.muxer = "mpegts", .encoder_options = "preset=ultrafast", .gop = 25};
  FP_REQUIRE_WRITER(spec);
  TempDir dir("cli-bad-ts-bits");
  write_pipeline(dir);
  write_video(spec, (dir / "bits.ts").string(), testsrc_frames(96, 64, 100));
  flip_transport_payload_bits((dir / "bits.ts").string(), 40, 1);

  const auto result = run_framepipe({"run", "p.yaml", "-i", "bits.ts", "--set", "input.on_error=stop"}, dir.path());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  std::smatch m;
  const std::regex pattern(
      R"(^framepipe: error: bits\.ts: stream #0 \(h264\): frame (\d+) \(\d+\.\d{3} s\) decoded with errors concealed \(on_error: stop\)\n$)");
  ASSERT_TRUE(std::regex_search(result.output, m, pattern)) << result.output;
  const long long damaged = std::stoll(m[1]);
  EXPECT_GE(damaged, 10);
  EXPECT_EQ(count_frames(dir / "out.mp4"), damaged);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), damaged);
}

// `cat a.ts b.ts` of two sizes: every frame of the first size is processed and written, then
// the run stops at the change with exit 1 naming the frame and both sizes.
TEST(CliBadMedia, SizeChangeStopsCleanlyAtTheChange) {
  const VideoWriteSpec spec{.muxer = "mpegts", .encoder_options = "preset=ultrafast"};
  FP_REQUIRE_WRITER(spec);
  TempDir dir("cli-bad-size-change");
  write_pipeline(dir);
  write_video(spec, (dir / "a.ts").string(), testsrc_frames(96, 64, 24));
  write_video(spec, (dir / "b.ts").string(), testsrc_frames(64, 48, 12));
  concatenate_files((dir / "a.ts").string(), (dir / "b.ts").string(), (dir / "joined.ts").string());

  const auto result = run_framepipe({"run", "p.yaml", "-i", "joined.ts"}, dir.path());
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("framepipe: error: joined.ts: stream #0 (h264): the frame size changes from 96x64 to "
                               "64x48 at frame 24 ("),
            std::string::npos)
      << result.output;
  EXPECT_EQ(count_frames(dir / "out.mp4"), 24);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), 24);
  EXPECT_EQ(open_source((dir / "out.mp4").string())->info().width, 96);
}

// 10-bit (High 10) and 4:4:4 H.264 run like any other input, converted to 8-bit I420.
class CliH264Format : public ::testing::TestWithParam<AVPixelFormat> {};

TEST_P(CliH264Format, RunsLikeAnyOtherInput) {
  const VideoWriteSpec spec{.muxer = "matroska", .pix_fmt = GetParam(), .encoder_options = "preset=ultrafast"};
  FP_REQUIRE_WRITER(spec);
  TempDir dir(std::string("cli-h264-") + av_get_pix_fmt_name(GetParam()));
  write_pipeline(dir);
  write_video(spec, (dir / "in.mkv").string(), testsrc_frames(96, 64, 12));
  const auto result = run_framepipe({"run", "p.yaml", "-i", "in.mkv", "--stats-json", "s.json"}, dir.path());
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(count_frames(dir / "out.mp4"), 12);
  EXPECT_EQ(count_lines(dir / "hist.jsonl"), 12);
  EXPECT_EQ(read_json(dir / "s.json")["stages"][0]["decode_errors"]["damaged_frames"], 0);
}

INSTANTIATE_TEST_SUITE_P(HighProfiles, CliH264Format, ::testing::Values(AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_YUV444P),
                         [](const ::testing::TestParamInfo<AVPixelFormat>& param_info) {
                           return std::string(av_get_pix_fmt_name(param_info.param));
                         });

// The smallest and odd sizes through every stage, with both kinds of encoded output.
TEST(CliBadMedia, TinyAndOddSizesThroughEveryStage) {
  TempDir dir("cli-tiny");
  write_pipeline(dir, R"(input: testsrc://1x1?frames=5
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
  - {id: smooth, type: mean_smooth, radius: 2}
  - {id: den, type: nlmeans, h: 5}
  - {id: fused, type: pyramid_fusion, inputs: [input, den], levels: 4}
  - {id: skel, type: thinning}
  - {id: out, type: encode, input: fused, output: out.mp4}
  - {id: skelout, type: encode, input: skel, output: skel.mkv}
)");
  for (const std::string uri : {"testsrc://1x1?frames=5", "testsrc://2x1?frames=5", "testsrc://17x13?frames=5"}) {
    const auto result = run_framepipe({"run", "p.yaml", "-i", uri, "-q"}, dir.path());
    ASSERT_EQ(result.exit_code, 0) << uri << ": " << result.output;
    EXPECT_EQ(count_frames(dir / "out.mp4"), 5) << uri;
    EXPECT_EQ(count_frames(dir / "skel.mkv"), 5) << uri;
    EXPECT_EQ(count_lines(dir / "hist.jsonl"), 5) << uri;
  }
}

TEST(CliBadMedia, AbsurdTestsrcSizesAreOneLineErrors) {
  TempDir dir("cli-absurd-size");
  write_pipeline(dir);
  for (const std::string uri : {"testsrc://100000x100000", "testsrc://0x0", "testsrc://-5x10",
                                "testsrc://99999999999999999999x10", "testsrc://4294967297x1"}) {
    const auto result = run_framepipe({"run", "p.yaml", "-i", uri}, dir.path());
    EXPECT_EQ(result.exit_code, 1) << uri << ": " << result.output;
    EXPECT_EQ(result.output.rfind("framepipe: error: " + uri + ": ", 0), 0u) << result.output;
    EXPECT_EQ(count_lines_of(result), 1) << result.output;
    EXPECT_FALSE(fs::exists(dir / "out.mp4"));
  }
}

// The largest allowed size when its frames (384 MiB each) cannot be had: exit 1 naming the
// URI, never a crash. 300 MiB of data segment is plenty for the rest of the program.
TEST(CliBadMedia, LargestTestsrcWithoutMemoryFailsCleanly) {
  if (cli_under_sanitizer()) GTEST_SKIP() << "a memory limit cannot be tested under a sanitizer";
  TempDir dir("cli-no-memory");
  write_pipeline(dir, R"(input: testsrc://16384x16384?frames=2
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
)");
  const auto result = run_framepipe_with_data_limit({"run", "p.yaml", "--device", "cpu"}, dir.path(), 300 * 1024);
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_EQ(result.output,
            "framepipe: error: testsrc://16384x16384?frames=2: out of memory for a 16384x16384 frame (384 MiB)\n");
}

}  // namespace
}  // namespace fp::test
