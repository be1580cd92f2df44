// The encoder takes a frame's host planes by reference where it can (media/lent_planes),
// and copies where it cannot: another layout, an odd size (4:4:4), unaligned planes.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/frame_pool.hpp"
#include "media/frame_sink.hpp"
#include "media/lent_planes.hpp"

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

namespace fp::test {
namespace {

namespace fs = std::filesystem;

struct AvFrame {
  AVFrame* frame = av_frame_alloc();
  ~AvFrame() { av_frame_free(&frame); }
};

TEST(LentPlanes, AnAlignedI420FrameIsLentAndGivenBackWhenTheEncoderLetsGo) {
  FramePool pool(64, 32);
  Frame frame = pool.acquire();
  const long before = frame.planes[1].storage.use_count();
  AvFrame picture;
  ASSERT_TRUE(lend_planes(frame, AV_PIX_FMT_YUV420P, picture.frame));
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(picture.frame->data[p], frame.planes[p].data) << p;
    EXPECT_EQ(picture.frame->linesize[p], frame.planes[p].pitch) << p;
  }
  EXPECT_EQ(frame.planes[1].storage.use_count(), before + 1);  // the encoder's reference
  EXPECT_EQ(av_frame_is_writable(picture.frame), 0);            // nobody may write into it
  AvFrame encoders;  // the encoder keeps its own reference past the caller's
  ASSERT_EQ(av_frame_ref(encoders.frame, picture.frame), 0);
  lender_done(picture.frame);
  av_frame_unref(picture.frame);
  EXPECT_EQ(frame.planes[1].storage.use_count(), before + 1);
  av_frame_unref(encoders.frame);
  EXPECT_EQ(frame.planes[1].storage.use_count(), before);
}

TEST(LentPlanes, WhatTheEncoderCannotTakeAsItIsIsRefused) {
  FramePool pool(64, 32);
  const Frame frame = pool.acquire();
  AvFrame picture;
  EXPECT_FALSE(lend_planes(frame, AV_PIX_FMT_YUV444P, picture.frame));  // odd sizes: 4:4:4, upsampled
  Frame shifted = frame;
  shifted.planes[2].data += 1;  // a plane that starts off the SIMD alignment
  EXPECT_FALSE(lend_planes(shifted, AV_PIX_FMT_YUV420P, picture.frame));
  Frame device = frame;
  device.location = MemoryLocation::Device;
  EXPECT_FALSE(lend_planes(device, AV_PIX_FMT_YUV420P, picture.frame));
  EXPECT_EQ(picture.frame->buf[0], nullptr);
}

// A real encoder: even sizes take the pooled planes by reference, odd ones are copied (4:4:4).
TEST(LentPlanes, TheFfmpegSinkLendsEvenSizedFramesAndCopiesOddOnes) {
  const fs::path dir = fs::temp_directory_path() / "framepipe-lent-planes";
  fs::create_directories(dir);
  for (const auto& [width, height, lent] : {std::tuple{64, 32, true}, std::tuple{63, 31, false}}) {
    VideoInfo info;
    info.width = width;
    info.height = height;
    SinkOptions options;
    options.path = (dir / ("out" + std::to_string(width) + ".mp4")).string();
    auto sink = open_sink(options, info);
    FramePool pool(width, height);
    for (int i = 0; i < 3; ++i) {
      Frame frame = pool.acquire();
      frame.pts = i;
      frame.time_base = info.time_base;
      sink->write(frame);
    }
    sink->close();
    EXPECT_EQ(sink->frames_written(), 3);
    EXPECT_EQ(sink->frames_lent(), lent ? 3 : 0) << width << "x" << height;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace fp::test
