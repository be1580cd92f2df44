// Bad media never crashes or hangs: every input here either gives the frames that can be
// decoded or a MediaError of one line naming the file (and the position where known).
// Inputs are made by the test with FFmpeg's encoders, then damaged on purpose.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>

#include "media/media_error.hpp"
#include "media_test_util.hpp"
#include "test_media_files.hpp"

namespace fp {
namespace {

using test::ScratchDir;

// What reading a whole source gave: the frames, and the error that ended it ("" if none).
struct ReadResult {
  std::vector<Frame> frames;
  std::string error;
  DecodeErrors errors;
};

ReadResult read_until_error(const std::string& path, OnDecodeError on_error) {
  ReadResult result;
  try {
    auto source = open_source(path, {}, on_error);
    try {
      while (auto frame = source->read()) result.frames.push_back(std::move(*frame));
    } catch (const MediaError& e) {
      result.error = e.what();
    }
    result.errors = source->decode_errors();
  } catch (const MediaError& e) {
    result.error = e.what();
  }
  EXPECT_EQ(result.error.find('\n'), std::string::npos) << result.error;
  return result;
}

// The skip conditions of every test that makes its input with FFmpeg's libx264.
#define FP_REQUIRE_WRITER(spec)                                                 \
  do {                                                                          \
    if (const std::string why = test::cannot_write(spec); !why.empty()) GTEST_SKIP() << why; \
  } while (0)

TEST(BadMedia, EmptyFileNamesTheFile) {
  ScratchDir dir;
  const std::string path = dir.file("empty.mp4");
  test::write_bytes(path, {});
  const ReadResult r = read_until_error(path, OnDecodeError::Skip);
  EXPECT_NE(r.error.find(path + ": the file is empty"), std::string::npos) << r.error;
}

TEST(BadMedia, RandomBytesAreRefusedNamingTheFile) {
  ScratchDir dir;
  for (unsigned seed : {1u, 2u, 3u}) {
    const std::string path = dir.file("noise" + std::to_string(seed) + ".ts");
    std::vector<char> bytes(64 * 1024);
    std::mt19937 random(seed);
    for (char& b : bytes) b = static_cast<char>(random());
    test::write_bytes(path, bytes);
    const ReadResult r = read_until_error(path, OnDecodeError::Skip);
    EXPECT_TRUE(r.frames.empty());
    EXPECT_NE(r.error.find(path + ": "), std::string::npos) << "seed " << seed << ": " << r.error;
  }
}

// A recording cut short before the muxer wrote its index (the moov box at the end).
TEST(BadMedia, Mp4CutBeforeItsIndexIsRefusedNamingTheFile) {
  const test::VideoWriteSpec spec{.muxer = "mp4", .encoder_options = "preset=ultrafast"};
  FP_REQUIRE_WRITER(spec);
  ScratchDir dir;
  const std::string path = dir.file("cut.mp4");
  test::write_video(spec, path, test::testsrc_frames(160, 120, 30));
  test::truncate_file(path, 0.5);
  const ReadResult r = read_until_error(path, OnDecodeError::Skip);
  EXPECT_TRUE(r.frames.empty());
  EXPECT_NE(r.error.find(path + ": "), std::string::npos) << r.error;
}

// A faststart mp4 (index first) cut mid-file: the frames before the cut are all there and
// correct; the packet cut in two is counted.
TEST(BadMedia, FaststartMp4CutMidFileGivesTheFramesBeforeTheCut) {
  const test::VideoWriteSpec spec{
      .muxer = "mp4", .encoder_options = "preset=ultrafast", .muxer_options = "movflags=+faststart", .gop = 10};
  FP_REQUIRE_WRITER(spec);
  ScratchDir dir;
  const std::string path = dir.file("cut.mp4");
  const std::vector<Frame> sent = test::testsrc_frames(160, 120, 50);
  test::write_video(spec, path, sent);
  test::truncate_file(path, 0.6);

  const ReadResult skip = read_until_error(path, OnDecodeError::Skip);
  EXPECT_EQ(skip.error, "");
  ASSERT_GE(skip.frames.size(), 10u);
  EXPECT_LT(skip.frames.size(), sent.size());
  EXPECT_GE(skip.errors.packets, 1);
  ASSERT_FALSE(skip.errors.first.empty());
  EXPECT_GE(skip.errors.first[0].packet, 10);
  // Every frame whole before the cut decodes as it was encoded.
  for (std::size_t i = 0; i + 1 < skip.frames.size(); ++i)
    EXPECT_GE(test::psnr(sent[i].planes[0], skip.frames[i].planes[0]), 30.0) << "frame " << i;

  const ReadResult stop = read_until_error(path, OnDecodeError::Stop);
  EXPECT_NE(stop.error.find(path + ": stream #0 (h264): damaged packet "), std::string::npos) << stop.error;
  EXPECT_NE(stop.error.find("(on_error: stop)"), std::string::npos) << stop.error;
  EXPECT_GE(stop.frames.size(), 10u);
  EXPECT_LE(stop.frames.size(), skip.frames.size());
}

// Bit errors inside an H.264 transport stream cost the damaged frames, not the stream:
// decoding goes on to the end, and the frames after the next keyframe are clean again.
TEST(BadMedia, BitErrorsInTransportStreamAreSkippedAndCounted) {
  const test::VideoWriteSpec spec{.muxer = "mpegts", .encoder_options = "preset=ultrafast", .gop = 25};
  FP_REQUIRE_WRITER(spec);
  ScratchDir dir;
  const std::string path = dir.file("noisy.ts");
  const std::vector<Frame> sent = test::testsrc_frames(160, 120, 100);
  test::write_video(spec, path, sent);
  test::damage_middle(path, 8, 100, 7);

  const ReadResult skip = read_until_error(path, OnDecodeError::Skip);
  EXPECT_EQ(skip.error, "");
  EXPECT_GE(skip.frames.size(), 50u);
  EXPECT_GE(skip.errors.total(), 1);
  ASSERT_FALSE(skip.errors.first.empty());
  EXPECT_TRUE(skip.errors.first[0].has_time());
  for (const Frame& f : skip.frames) {
    ASSERT_EQ(f.width, 160);
    ASSERT_EQ(f.height, 120);
  }
  // The damage lies in the middle third; the last keyframe (frame 75) is past it.
  ASSERT_GE(skip.frames.size(), 10u);
  for (std::size_t k = 1; k <= 10; ++k) {
    const Frame& in = sent[sent.size() - k];
    const Frame& out = skip.frames[skip.frames.size() - k];
    EXPECT_GE(test::psnr(in.planes[0], out.planes[0]), 30.0) << k << " frames from the end";
  }

  const ReadResult stop = read_until_error(path, OnDecodeError::Stop);
  EXPECT_NE(stop.error.find(path + ": stream #0 (h264): "), std::string::npos) << stop.error;
  EXPECT_NE(stop.error.find("(on_error: stop)"), std::string::npos) << stop.error;
  EXPECT_TRUE(stop.error.find("packet ") != std::string::npos || stop.error.find("frame ") != std::string::npos)
      << stop.error;
  // The first third of the file is intact: at least the frames in it arrive first.
  EXPECT_GE(stop.frames.size(), 10u);
  EXPECT_LT(stop.frames.size(), skip.frames.size());
}

// Keeps the first NAL unit's start code and header byte and overwrites everything after it
// with bytes that hold no start code: the muxer still sees one NAL unit, the decoder a
// slice it cannot parse.
void garble_after_first_nal_header(AVPacket& packet) {
  for (int i = 0; i + 3 < packet.size; ++i) {
    if (packet.data[i] == 0 && packet.data[i + 1] == 0 && packet.data[i + 2] == 1) {
      std::fill(packet.data + i + 4, packet.data + packet.size, static_cast<std::uint8_t>(0xa5));
      return;
    }
  }
}

// A packet the decoder cannot parse (here: the slice data of a frame in Matroska replaced
// by garbage) is dropped and decoding goes on with the next one.
TEST(BadMedia, GarbagePacketIsDroppedAndDecodingGoesOn) {
  constexpr std::int64_t kDamaged = 35;
  test::VideoWriteSpec spec{.muxer = "matroska", .encoder_options = "preset=ultrafast", .gop = 10};
  spec.on_packet = [](AVPacket& packet, std::int64_t index) {
    if (index == kDamaged) garble_after_first_nal_header(packet);
  };
  FP_REQUIRE_WRITER(spec);
  ScratchDir dir;
  const std::string path = dir.file("garbage.mkv");
  const std::vector<Frame> sent = test::testsrc_frames(160, 120, 60);
  test::write_video(spec, path, sent);

  const ReadResult skip = read_until_error(path, OnDecodeError::Skip);
  EXPECT_EQ(skip.error, "");
  EXPECT_EQ(skip.frames.size(), sent.size() - 1) << "only the garbage packet's frame is missing";
  ASSERT_GE(skip.errors.packets, 1);
  // Frame threads report a packet's failure a few packets late: the position is at or
  // shortly after it.
  EXPECT_GE(skip.errors.first[0].packet, kDamaged);
  EXPECT_EQ(skip.errors.first[0].reason, "Invalid data found when processing input");
  // From the keyframe after the damage (frame 40) on, frames are clean.
  ASSERT_GE(skip.frames.size(), 20u);
  for (std::size_t k = 1; k <= 19; ++k)
    EXPECT_GE(test::psnr(sent[sent.size() - k].planes[0], skip.frames[skip.frames.size() - k].planes[0]), 30.0);

  const ReadResult stop = read_until_error(path, OnDecodeError::Stop);
  EXPECT_NE(stop.error.find(path + ": stream #0 (h264): damaged packet "), std::string::npos) << stop.error;
  EXPECT_NE(stop.error.find("Invalid data found when processing input (on_error: stop)"), std::string::npos)
      << stop.error;
  EXPECT_LE(stop.frames.size(), static_cast<std::size_t>(kDamaged));
}

// Two transport streams of different sizes, one after the other (as `cat a.ts b.ts`): the
// frames of the first size come through, then the stream ends with an error at the change.
// No frame of the new size reaches the pipeline, scaled or not.
TEST(BadMedia, SizeChangeMidStreamStopsAtTheChange) {
  const test::VideoWriteSpec spec{.muxer = "mpegts", .encoder_options = "preset=ultrafast"};
  FP_REQUIRE_WRITER(spec);
  ScratchDir dir;
  const std::string first = dir.file("first.ts");
  const std::string second = dir.file("second.ts");
  const std::string joined = dir.file("joined.ts");
  test::write_video(spec, first, test::testsrc_frames(160, 120, 24));
  test::write_video(spec, second, test::testsrc_frames(96, 64, 12));
  test::concatenate_files(first, second, joined);

  for (const OnDecodeError on_error : {OnDecodeError::Skip, OnDecodeError::Stop}) {
    const ReadResult r = read_until_error(joined, on_error);
    for (const Frame& f : r.frames) {
      ASSERT_EQ(f.width, 160);
      ASSERT_EQ(f.height, 120);
    }
    EXPECT_NE(r.error.find(joined + ": stream #0 (h264): "), std::string::npos) << r.error;
    if (on_error == OnDecodeError::Skip) {
      EXPECT_EQ(r.frames.size(), 24u);
      EXPECT_NE(r.error.find("the frame size changes from 160x120 to 96x64 at frame 24 ("), std::string::npos)
          << r.error;
    }
  }
}

TEST(BadMedia, AbsurdTestsrcSizesAreRefusedNamingTheUri) {
  for (const std::string uri :
       {"testsrc://100000x100000", "testsrc://0x0", "testsrc://-5x10", "testsrc://10x-5", "testsrc://16385x16",
        "testsrc://99999999999999999999x10", "testsrc://4294967297x1", "testsrc://x", "testsrc://1x"}) {
    try {
      open_source(uri);
      ADD_FAILURE() << uri << " was accepted";
    } catch (const MediaError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(uri + ": ", 0), 0u) << e.what();
    }
  }
  // The limits themselves are allowed.
  for (const std::string uri : {"testsrc://16384x1?frames=1", "testsrc://1x16384?frames=1", "testsrc://1x1?frames=1"})
    EXPECT_EQ(test::read_all(uri).size(), 1u) << uri;
}

long data_segment_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmData:", 0) == 0) return std::atol(line.c_str() + 7) * 1024;
  return -1;
}

// In a child process: allows 128 MiB of data segment beyond what is used (less than one
// 16384x16384 frame), reads `uri`, and exits 3 after printing the MediaError it expects.
[[noreturn]] void read_with_little_memory(const std::string& uri) {
  const long used = data_segment_bytes();
  if (used < 0) std::_Exit(10);
  const auto bytes = static_cast<rlim_t>(used) + (rlim_t{128} << 20);
  const rlimit limit{bytes, bytes};
  if (setrlimit(RLIMIT_DATA, &limit) != 0) std::_Exit(11);
  try {
    auto source = open_source(uri);
    while (source->read()) {
    }
  } catch (const MediaError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    std::_Exit(3);
  } catch (...) {
    std::_Exit(12);
  }
  std::_Exit(13);
}

// 16384x16384 is allowed, but its frames (384 MiB each) may not fit: then reading fails
// with an error naming the URI, never a crash.
TEST(BadMedia, LargestTestsrcFailsCleanlyWithoutMemory) {
  if (test::kSanitizerBuild) GTEST_SKIP() << "a memory limit cannot be tested under a sanitizer";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(read_with_little_memory("testsrc://16384x16384?frames=2"), testing::ExitedWithCode(3),
              "testsrc://16384x16384\\?frames=2: out of memory for a 16384x16384 frame \\(384 MiB\\)");
}

}  // namespace
}  // namespace fp
