// Frames whose chroma is NV12 (an NVDEC frame's, downloaded as it is when no stage reads
// it): the encoders take them by reference when opened for NV12 (VideoInfo::chroma_layout)
// and convert them otherwise, and what is written is what their I420 twins give.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

#include "core/frame_pool.hpp"
#include "core/interleaved_chroma.hpp"
#include "media/frame_sink.hpp"
#include "media/lent_planes.hpp"
#include "tests/media/media_test_util.hpp"

extern "C" {
#include <libavutil/frame.h>
#include <libavutil/pixfmt.h>
}

namespace fp::test {
namespace {

// `frame` with its U and V interleaved into one plane of pairs, in pooled planes.
Frame nv12_twin(const Frame& frame, FramePool& pool) {
  Frame twin = frame;
  twin.layout = PlaneLayout::NV12;
  twin.planes[1] = pool.acquire_interleaved_chroma();
  twin.planes[2] = Plane{};
  interleave_chroma(frame.planes[1].cview(), frame.planes[2].cview(), twin.planes[1]);
  return twin;
}

TEST(InterleavedChroma, PairsGoToTheirPlanesAndBack) {
  for (const auto& [width, height] : {std::pair{64, 32}, std::pair{63, 31}, std::pair{1, 1}}) {
    FramePool pool(width, height);
    const Frame frame = read_all("testsrc://" + std::to_string(width) + "x" + std::to_string(height) +
                                 "@30?noise=20&frames=1")
                            .front();
    const Frame twin = nv12_twin(frame, pool);
    const Plane& uv = twin.planes[1];
    ASSERT_EQ(uv.width, chroma_width(width));
    for (int y = 0; y < uv.height; ++y)
      for (int x = 0; x < uv.width; ++x) {
        ASSERT_EQ(uv.data[y * uv.pitch + 2 * x], frame.planes[1].cview()(x, y)) << x << "," << y;
        ASSERT_EQ(uv.data[y * uv.pitch + 2 * x + 1], frame.planes[2].cview()(x, y)) << x << "," << y;
      }
    Frame back = pool.acquire();
    deinterleave_chroma(uv, back.planes[1].view(), back.planes[2].view());
    back.planes[0] = frame.planes[0];
    EXPECT_TRUE(same_pixels(back, frame)) << width << "x" << height;
  }
}

TEST(LentPlanes, AnNv12FrameIsLentToAnNv12EncoderOnly) {
  FramePool pool(64, 32);
  const Frame i420 = pool.acquire();
  const Frame nv12 = nv12_twin(i420, pool);
  AVFrame* picture = av_frame_alloc();
  ASSERT_TRUE(lend_planes(nv12, AV_PIX_FMT_NV12, picture));
  EXPECT_EQ(picture->data[1], nv12.planes[1].data);
  EXPECT_EQ(picture->linesize[1], nv12.planes[1].pitch);
  EXPECT_EQ(picture->data[2], nullptr);
  lender_done(picture);
  EXPECT_FALSE(lend_planes(nv12, AV_PIX_FMT_YUV420P, picture));
  EXPECT_FALSE(lend_planes(i420, AV_PIX_FMT_NV12, picture));
  av_frame_free(&picture);
}

// Every combination of the frames' layout and the layout the output was opened for, in a
// file x264 writes and in a .y4m, even and odd sizes (4:4:4): the same pictures as the I420
// frames opened for I420 give. Lent only where the frame is as the encoder takes it.
TEST(Nv12Frames, AreEncodedAsTheirI420Twins) {
  const ScratchDir dir;
  for (const auto& [width, height] : {std::pair{64, 32}, std::pair{63, 31}}) {
    const std::string uri = "testsrc://" + std::to_string(width) + "x" + std::to_string(height) + "@30?noise=20&frames=4";
    auto source = open_source(uri);
    const std::vector<Frame> frames = read_all(*source);
    FramePool pool(width, height);
    for (const std::string extension : {".mp4", ".y4m"}) {
      std::vector<Frame> reference;
      for (const PlaneLayout opened : {PlaneLayout::I420, PlaneLayout::NV12})
        for (const PlaneLayout given : {PlaneLayout::I420, PlaneLayout::NV12}) {
          const std::string name = std::to_string(width) + (opened == PlaneLayout::NV12 ? "-for-nv12" : "-for-i420") +
                                   (given == PlaneLayout::NV12 ? "-nv12" : "-i420") + extension;
          VideoInfo info = source->info();
          info.chroma_layout = opened;
          SinkOptions options;
          options.path = dir.file(name);
          auto sink = open_sink(options, info);
          for (const Frame& frame : frames) sink->write(given == PlaneLayout::NV12 ? nv12_twin(frame, pool) : frame);
          sink->close();
          // y4m stores I420 whatever the output was opened for; odd sizes are 4:4:4 in x264.
          const bool lends = extension == ".y4m" ? given == PlaneLayout::I420 : opened == given && width % 2 == 0;
          EXPECT_EQ(sink->frames_lent(), lends ? 4 : 0) << name;
          const std::vector<Frame> written = read_all(options.path);
          ASSERT_EQ(written.size(), frames.size()) << name;
          if (reference.empty()) {
            reference = written;
            continue;
          }
          for (std::size_t i = 0; i < written.size(); ++i)
            EXPECT_TRUE(same_pixels(written[i], reference[i])) << name << ", frame " << i;
        }
    }
  }
}

}  // namespace
}  // namespace fp::test
