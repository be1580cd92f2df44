// testsrc -> sink -> file -> FFmpeg source: frame count, timestamps and pixels survive.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <utility>
#include <vector>
#include <ostream>

#include "media/media_error.hpp"
#include "media_test_util.hpp"

extern "C" {
#include <libavutil/mathematics.h>
}

namespace fp {
namespace {

using test::psnr;
using test::read_all;
using test::same_pixels;
using test::ScratchDir;
using test::transcode;

std::int64_t rescale(std::int64_t pts, Rational from, Rational to) {
  return av_rescale_q(pts, AVRational{from.num, from.den}, AVRational{to.num, to.den});
}

struct RoundTripCase {
  int width;
  int height;
  std::string rate;
  std::string extension;
};

// Readable test names in ctest instead of a byte dump of the parameter.
void PrintTo(const RoundTripCase& c, std::ostream* os) {
  *os << c.width << "x" << c.height << "@" << c.rate << " " << c.extension;
}

std::string case_name(const testing::TestParamInfo<RoundTripCase>& info) {
  std::string rate = info.param.rate;
  for (char& c : rate)
    if (c == '/' || c == '.') c = '_';
  return std::to_string(info.param.width) + "x" + std::to_string(info.param.height) + "_at_" + rate + "_" +
         info.param.extension.substr(1);
}

class H264RoundTrip : public testing::TestWithParam<RoundTripCase> {};

TEST_P(H264RoundTrip, FramesTimestampsAndQualitySurvive) {
  const RoundTripCase& c = GetParam();
  ScratchDir dir;
  const std::string uri = "testsrc://" + std::to_string(c.width) + "x" + std::to_string(c.height) + "@" + c.rate +
                          "?noise=2&frames=24";
  SinkOptions options;
  options.path = dir.file("out" + c.extension);
  const std::vector<Frame> sent = transcode(uri, options);
  ASSERT_EQ(sent.size(), 24u);

  // A clean file decodes without a single damaged packet or frame.
  auto decoded = open_source(options.path, {}, OnDecodeError::Stop);
  EXPECT_EQ(decoded->decoder_name(), "h264 (software)");
  const VideoInfo& info = decoded->info();
  EXPECT_EQ(info.width, c.width);
  EXPECT_EQ(info.height, c.height);
  EXPECT_FALSE(info.live);
  EXPECT_NEAR(info.frame_rate.value(), sent[0].time_base.den / static_cast<double>(sent[0].time_base.num), 0.01);
  if (c.extension == ".mp4") {
    EXPECT_EQ(info.frame_count, 24);  // mp4 knows it; mkv and ts do not say
  }

  const std::vector<Frame> received = read_all(*decoded);
  ASSERT_EQ(received.size(), sent.size());
  // MPEG-TS cannot store a negative dts, so the muxer shifts the whole clock by the B-frame
  // delay: there the pts are compared relative to the first frame. mp4 (edit list) and mkv
  // keep them exactly.
  const bool relative = c.extension == ".ts";
  const std::int64_t origin = relative ? received[0].pts : 0;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    const Frame& in = sent[i];
    const Frame& out = received[i];
    ASSERT_EQ(out.width, c.width);
    ASSERT_EQ(out.height, c.height);
    ASSERT_NE(out.pts, kNoPts);
    EXPECT_EQ(out.time_base, info.time_base);
    EXPECT_EQ(rescale(out.pts - origin, out.time_base, in.time_base), in.pts) << "frame " << i;
    EXPECT_GE(psnr(in.planes[0], out.planes[0]), 35.0) << "frame " << i;
    EXPECT_GE(psnr(in.planes[1], out.planes[1]), 30.0) << "frame " << i;
    EXPECT_GE(psnr(in.planes[2], out.planes[2]), 30.0) << "frame " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Containers, H264RoundTrip,
                         testing::Values(RoundTripCase{320, 240, "30", ".mp4"}, RoundTripCase{641, 479, "30", ".mp4"},
                                         RoundTripCase{320, 240, "30000/1001", ".mp4"}, RoundTripCase{320, 240, "30", ".mkv"},
                                         RoundTripCase{641, 479, "30000/1001", ".mkv"}, RoundTripCase{320, 240, "30", ".ts"},
                                         RoundTripCase{641, 479, "25", ".ts"}, RoundTripCase{1, 1, "25", ".mkv"}),
                         case_name);

class Y4mRoundTrip : public testing::TestWithParam<RoundTripCase> {};

TEST_P(Y4mRoundTrip, IsBitExact) {
  const RoundTripCase& c = GetParam();
  ScratchDir dir;
  const std::string uri = "testsrc://" + std::to_string(c.width) + "x" + std::to_string(c.height) + "@" + c.rate +
                          "?noise=6&frames=10";
  SinkOptions options;
  options.path = dir.file("out.y4m");
  options.codec = "rawvideo";
  {
    auto source = open_source(uri);
    auto sink = open_sink(options, source->info());
    EXPECT_EQ(sink->encoder_name(), "rawvideo (y4m)");
  }
  const std::vector<Frame> sent = transcode(uri, options);
  auto decoded = open_source(options.path);
  EXPECT_EQ(decoded->info().width, c.width);
  EXPECT_EQ(decoded->info().height, c.height);
  EXPECT_EQ(decoded->info().time_base, sent[0].time_base);
  const std::vector<Frame> received = read_all(*decoded);
  ASSERT_EQ(received.size(), sent.size());
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_TRUE(same_pixels(sent[i], received[i])) << "frame " << i;
    EXPECT_EQ(received[i].pts, sent[i].pts) << "frame " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, Y4mRoundTrip,
                         testing::Values(RoundTripCase{320, 240, "30", ".y4m"}, RoundTripCase{641, 479, "30", ".y4m"},
                                         RoundTripCase{1, 1, "30000/1001", ".y4m"}, RoundTripCase{17, 13, "25", ".y4m"}),
                         case_name);

TEST(Sink, DestroyedWithoutCloseStillLeavesACompleteFile) {
  ScratchDir dir;
  SinkOptions options;
  options.path = dir.file("unclosed.mp4");
  {
    auto source = open_source("testsrc://160x120?frames=20");
    auto sink = open_sink(options, source->info());
    while (auto frame = source->read()) sink->write(*frame);
    EXPECT_EQ(sink->frames_written(), 20);
  }  // no close(): the destructor flushes the encoder and writes the trailer
  auto decoded = open_source(options.path);
  EXPECT_EQ(decoded->info().frame_count, 20);
  EXPECT_EQ(read_all(*decoded).size(), 20u);
}

TEST(Sink, CloseIsIdempotentAndWritingAfterwardsFails) {
  ScratchDir dir;
  SinkOptions options;
  options.path = dir.file("twice.mkv");
  auto source = open_source("testsrc://160x120?frames=5");
  auto sink = open_sink(options, source->info());
  EXPECT_EQ(sink->encoder_name(), "libx264");
  auto frame = source->read();
  sink->write(*frame);
  sink->close();
  sink->close();
  EXPECT_EQ(sink->frames_written(), 1);
  EXPECT_THROW(sink->write(*frame), MediaError);
  EXPECT_EQ(read_all(options.path).size(), 1u);
}

TEST(Sink, RejectsFramesOfAnotherSize) {
  ScratchDir dir;
  SinkOptions options;
  options.path = dir.file("sized.mp4");
  auto big = open_source("testsrc://320x240?frames=1");
  auto small = open_source("testsrc://160x120?frames=1");
  auto sink = open_sink(options, small->info());
  try {
    sink->write(*big->read());
    ADD_FAILURE() << "a 320x240 frame went into a 160x120 output";
  } catch (const MediaError& e) {
    EXPECT_NE(std::string(e.what()).find(options.path), std::string::npos) << e.what();
  }
}

TEST(Sink, NullSinkCountsFrames) {
  for (const std::string path : {"null", ""}) {
    SinkOptions options;
    options.path = path;
    auto source = open_source("testsrc://64x48?frames=9");
    auto sink = open_sink(options, source->info());
    EXPECT_EQ(sink->encoder_name(), "null");
    while (auto frame = source->read()) sink->write(*frame);
    sink->close();
    sink->close();
    EXPECT_EQ(sink->frames_written(), 9);
  }
}

// Software decoding writes each picture straight into the caller's memory (no copy), and the
// buffers come back: once the decoder's reference pictures and its threads' frames are all
// allocated, decoding allocates nothing more.
TEST(FfmpegSource, DecodesIntoTheCallersPooledMemoryAndStopsWhenInterrupted) {
  ScratchDir dir;
  SinkOptions options;
  options.path = dir.file("clip.mp4");
  transcode("testsrc://160x120?frames=200", options);
  struct Blocks {
    std::mutex mutex;
    std::vector<std::pair<const std::uint8_t*, std::size_t>> list;
    bool holds(const Plane& plane) {
      std::lock_guard lock(mutex);
      const std::uint8_t* end = plane.data + (plane.height - 1) * plane.pitch + plane.width;
      return std::any_of(list.begin(), list.end(),
                         [&](const auto& b) { return plane.data >= b.first && end <= b.first + b.second; });
    }
    std::size_t count() {
      std::lock_guard lock(mutex);
      return list.size();
    }
  };
  auto blocks = std::make_shared<Blocks>();
  static constexpr std::align_val_t kAlign{64};  // static: the lambdas use it without a capture
  PlaneMemory memory;
  memory.allocate = [blocks](std::size_t bytes) {
    auto* p = static_cast<std::uint8_t*>(::operator new[](bytes, kAlign));
    std::lock_guard lock(blocks->mutex);
    blocks->list.emplace_back(p, bytes);
    return p;
  };
  memory.release = [](std::uint8_t* p) { ::operator delete[](p, kAlign); };
  auto source = open_source(options.path, SourceOptions{.memory = memory});
  std::size_t halfway = 0;
  for (int i = 0; i < 200; ++i) {
    auto frame = source->read();
    ASSERT_TRUE(frame.has_value()) << "frame " << i;
    EXPECT_EQ(frame->sequence, i);
    for (const Plane& plane : frame->planes) ASSERT_TRUE(blocks->holds(plane)) << "frame " << i << " was copied";
    if (i == 99) halfway = blocks->count();
  }
  EXPECT_GT(halfway, 0U);
  EXPECT_EQ(blocks->count(), halfway) << "the pools should have stopped growing";
  source->interrupt();
  EXPECT_FALSE(source->read().has_value());
}

}  // namespace
}  // namespace fp
