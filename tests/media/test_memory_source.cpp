// open_memory_source: a file held in memory decodes exactly as the same file on disk; it
// reads only its own bytes; DecodeOptions bound the frame size. Then the media_decode fuzz
// target's seed corpus and its regressions (tests/fuzz/), replayed through the same API and
// checks, so that the normal suite catches a regression without clang or libFuzzer.
#include <gtest/gtest.h>

#include <fstream>
#include <span>
#include <utility>
#include <vector>
#include <sstream>

#include "media/media_error.hpp"
#include "media/memory_source.hpp"
#include "media_test_util.hpp"
#include "tests/fuzz/media_fuzz_decode.hpp"
#include "tests/fuzz/regression_files.hpp"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
}

namespace fp {
namespace {

using test::ScratchDir;

std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::span<const std::uint8_t> as_bytes(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

std::string memory_error(const std::string& bytes, const DecodeOptions& options = {}) {
  try {
    const auto source = open_memory_source("in-memory", as_bytes(bytes), {}, options);
    test::read_all(*source);
  } catch (const MediaError& e) {
    return e.what();
  }
  return "";
}

TEST(MemorySource, DecodesLikeTheSameFileOnDisk) {
  ScratchDir dir;
  for (const char* name : {"clip.mp4", "clip.mkv", "clip.ts", "clip.y4m"}) {
    SCOPED_TRACE(name);
    const std::string path = dir.file(name);
    test::transcode("testsrc://48x32@25?noise=10&frames=6", {.path = path});
    const std::vector<Frame> from_file = test::read_all(path);
    const std::string bytes = read_bytes(path);
    const auto source = open_memory_source(name, as_bytes(bytes));
    EXPECT_EQ(source->info().width, 48);
    EXPECT_EQ(source->info().height, 32);
    const std::vector<Frame> from_memory = test::read_all(*source);
    ASSERT_EQ(from_memory.size(), 6u);
    ASSERT_EQ(from_file.size(), from_memory.size());
    for (std::size_t i = 0; i < from_file.size(); ++i) {
      EXPECT_TRUE(test::same_pixels(from_file[i], from_memory[i])) << "frame " << i;
      EXPECT_EQ(from_file[i].pts, from_memory[i].pts) << "frame " << i;
    }
  }
}

TEST(MemorySource, ErrorsNameTheInput) {
  EXPECT_EQ(memory_error(""), "in-memory: not a video: Invalid data found when processing input");
  const std::string text = "These are my notes.\nNothing to see here.\n";
  EXPECT_EQ(memory_error(text).rfind("in-memory: ", 0), 0u) << memory_error(text);
}

// A playlist in memory has no folder around it: the files it names are not opened.
TEST(MemorySource, OpensNoOtherFile) {
  ScratchDir dir;
  const std::string segment = dir.file("segment.ts");
  test::transcode("testsrc://48x32@25?frames=3", {.path = segment});
  const std::string playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n" + segment + "\n#EXT-X-ENDLIST\n";
  const std::string error = memory_error(playlist);
  EXPECT_EQ(error.rfind("in-memory: ", 0), 0u) << error;
}

TEST(MemorySource, MaxPixelsRefusesLargerFrames) {
  ScratchDir dir;
  const std::string path = dir.file("clip.mkv");
  test::transcode("testsrc://48x32@25?frames=2", {.path = path});
  const std::string bytes = read_bytes(path);
  // The decoder checks its (padded) buffer size, so the exact limit is the codec's business.
  EXPECT_EQ(memory_error(bytes, {.max_pixels = 4 * 48 * 32}), "");
  const std::string error = memory_error(bytes, {.max_pixels = 48 * 32 / 4});
  EXPECT_EQ(error.rfind("in-memory: ", 0), 0u) << error;
}

// The seeds are small valid files: each decodes (the audio-only one has no video stream).
class MediaFuzzSeed : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> seed_files() {
  std::vector<std::string> names;
  const auto dir = std::filesystem::path(FRAMEPIPE_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / "media_decode";
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// What a seed needs of the FFmpeg build (the GPU machine's carried FFmpeg is a small one):
// "" when it has it, else what is missing.
std::string missing_for_seed(const std::string& name) {
  static const std::vector<std::pair<std::string, std::string>> kDemuxers = {{".avi", "avi"}, {".mpg", "mpeg"}};
  static const std::vector<std::pair<std::string, std::string>> kDecoders = {
      {"mjpeg", "mjpeg"}, {"mpeg2", "mpeg2video"}, {"mpeg4", "mpeg4"}, {"vp9", "vp9"}, {"hevc", "hevc"}};
  for (const auto& [extension, demuxer] : kDemuxers)
    if (name.ends_with(extension) && av_find_input_format(demuxer.c_str()) == nullptr) return demuxer + " demuxer";
  for (const auto& [prefix, decoder] : kDecoders)
    if (name.starts_with(prefix) && avcodec_find_decoder_by_name(decoder.c_str()) == nullptr) return decoder + " decoder";
  return "";
}

TEST_P(MediaFuzzSeed, Decodes) {
  if (const auto missing = missing_for_seed(GetParam()); !missing.empty())
    GTEST_SKIP() << "this FFmpeg build has no " << missing;
  const auto path = std::filesystem::path(FRAMEPIPE_SOURCE_DIR) / "tests" / "fuzz" / "corpus" / "media_decode" / GetParam();
  const std::string bytes = read_bytes(path);
  const fuzz::DecodeOutcome outcome = fuzz::decode_bounded(as_bytes(bytes));
  EXPECT_EQ(outcome.broken, "");
  if (GetParam().rfind("audio_only", 0) == 0) {
    EXPECT_EQ(outcome.error, "fuzz-input: no video stream");
  } else {
    EXPECT_EQ(outcome.error, "");
    EXPECT_GE(outcome.frames, 2) << outcome.decoder;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, MediaFuzzSeed, ::testing::ValuesIn(seed_files()), fuzz::regression_test_name);

// Inputs that made the fuzz target fail: each now decodes or ends with a clean error.
class MediaFuzzRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(MediaFuzzRegression, DecodesOrFailsCleanly) {
  const std::string bytes = fuzz::read_regression("media_decode", GetParam());
  EXPECT_EQ(fuzz::decode_bounded(as_bytes(bytes)).broken, "");
}

INSTANTIATE_TEST_SUITE_P(Inputs, MediaFuzzRegression, ::testing::ValuesIn(fuzz::regression_files("media_decode")),
                         fuzz::regression_test_name);
// No reproducer has been committed for this target yet.
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(MediaFuzzRegression);

}  // namespace
}  // namespace fp
