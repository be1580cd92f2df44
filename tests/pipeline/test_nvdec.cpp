// NVDEC decoding into the graph: the frames the kernels get are those of software decoding
// (H.264 decoding is bit-exact, and splitting NV12's chroma is a copy), they stay owned
// while a slot is late, any number of slots gives the same output, a stream NVDEC cannot
// take falls back (auto) or fails (nvdec) saying why, and memory stays flat over a long
// run. Skipped where no CUDA device is present.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "cuda/spin.hpp"
#include "media/frame_source.hpp"
#include "pipeline/config/loader.hpp"
#include "pipeline/engine/executor.hpp"
#include "stages/stage.hpp"
#include "tests/cuda/gpu_test.hpp"
#include "tests/media/media_test_util.hpp"
#include "tests/media/test_media_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

// The first differing sample of two frames, or "" when every plane is equal.
std::string first_difference(const Frame& a, const Frame& b) {
  if (a.width != b.width || a.height != b.height) return "sizes differ";
  for (std::size_t p = 0; p < a.planes.size(); ++p) {
    const auto va = a.planes[p].cview();
    const auto vb = b.planes[p].cview();
    for (int y = 0; y < va.height; ++y)
      for (int x = 0; x < va.width; ++x)
        if (va.row(y)[x] != vb.row(y)[x])
          return "plane " + std::to_string(p) + " (" + std::to_string(x) + "," + std::to_string(y) + "): " +
                 std::to_string(va.row(y)[x]) + " vs " + std::to_string(vb.row(y)[x]);
  }
  return "";
}

// Resident memory of this process in bytes.
long long resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0;
  long long resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<long long>(sysconf(_SC_PAGESIZE));
}

long long device_used_bytes() {
  std::size_t free = 0;
  std::size_t total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return -1;
  return static_cast<long long>(total - free);
}

class NvdecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" /
           ("nvdec-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // An H.264 file of `count` noisy testsrc frames (B-frames, so that frames come out of
  // the decoder in another order than they go in).
  fs::path make_h264(const std::string& name, int width, int height, int count,
                     AVPixelFormat format = AV_PIX_FMT_YUV420P) {
    VideoWriteSpec spec{.encoder = "libx264", .muxer = "mp4", .pix_fmt = format, .gop = 12};
    spec.encoder_options = "preset=veryfast";  // with B-frames
    if (const auto reason = cannot_write(spec); !reason.empty()) throw std::runtime_error(reason);
    const fs::path path = dir_ / name;
    write_video(spec, path.string(), testsrc_frames(width, height, count));
    return path;
  }

  // Runs a decode stage with `decode` on `file` into OUT/NAME.y4m (and the mean_smooth of
  // its luma into OUT/NAME-smooth.y4m) on cuda:0.
  RunStats run(const fs::path& file, const std::string& decode, const std::string& name, RunOptions options = {}) {
    const std::string out = (dir_ / name).string();
    const std::string yaml = "stages:\n"
                             "  - {id: in, type: decode, uri: '" + file.string() + "', decode: " + decode + "}\n"
                             "  - {id: out, type: encode, input: in, output: '" + out + ".y4m'}\n"
                             "  - {id: smooth, type: mean_smooth, input: in, radius: 1}\n"
                             "  - {id: smooth_out, type: encode, input: smooth, output: '" + out + "-smooth.y4m'}\n";
    return run_pipeline(parse_pipeline(yaml, "test.yaml"), Device{DeviceKind::Cuda, 0}, options);
  }

  static std::string decoder_of(const RunStats& stats) {
    for (const auto& stage : stats.stages)
      if (stage.id == "in") return stage.decoder;
    return "";
  }

  // Every frame of NAME-A and NAME-B equal, for the decoded and the smoothed output.
  void expect_same_outputs(const std::string& a, const std::string& b, std::size_t frames) {
    for (const std::string suffix : {".y4m", "-smooth.y4m"}) {
      const auto fa = read_all((dir_ / (a + suffix)).string());
      const auto fb = read_all((dir_ / (b + suffix)).string());
      ASSERT_EQ(fa.size(), frames) << a << suffix;
      ASSERT_EQ(fb.size(), frames) << b << suffix;
      int bad = 0;
      for (std::size_t i = 0; i < frames; ++i) {
        const auto difference = first_difference(fa[i], fb[i]);
        if (difference.empty()) continue;
        ADD_FAILURE() << a << suffix << " vs " << b << suffix << ", frame " << i << ": " << difference;
        if (++bad == 5) return;
      }
    }
  }

  fs::path dir_;
};

// Bit-exact: H.264 decoding is, and the chroma split is a copy. 1080p is coded as 1088
// rows, so the crop to 1080 is checked too; 320x240 has no crop.
TEST_F(NvdecTest, GivesTheFramesOfSoftwareDecoding) {
  FP_REQUIRE_GPU();
  for (const auto& [width, height, count] : {std::tuple{320, 240, 40}, std::tuple{1920, 1080, small_sizes() ? 4 : 12}}) {
    const auto file = make_h264("clip.mp4", width, height, count);
    const auto nvdec = run(file, "nvdec", "nvdec");
    const auto software = run(file, "software", "software");
    EXPECT_EQ(decoder_of(nvdec), "h264 (nvdec)");
    EXPECT_EQ(decoder_of(software), "h264 (software)");
    EXPECT_EQ(nvdec.frames, count);
    expect_same_outputs("nvdec", "software", static_cast<std::size_t>(count));
  }
}

// Auto picks NVDEC for 8-bit 4:2:0 H.264 on a GPU.
TEST_F(NvdecTest, AutoUsesNvdecOnAGpu) {
  FP_REQUIRE_GPU();
  const auto file = make_h264("clip.mp4", 320, 240, 10);
  EXPECT_EQ(decoder_of(run(file, "auto", "auto")), "h264 (nvdec)");
}

// NVDEC conceals damage without flagging frames: a run that must stop at a damaged frame
// is decoded in software under auto, which says so.
TEST_F(NvdecTest, AutoDecodesInSoftwareWhenDamageMustStopTheRun) {
  FP_REQUIRE_GPU();
  const auto file = make_h264("clip.mp4", 320, 240, 10);
  const std::string yaml = "stages:\n"
                           "  - {id: in, type: decode, uri: '" + file.string() + "', on_error: stop}\n"
                           "  - {id: out, type: encode, output: null}\n";
  const auto stats = run_pipeline(parse_pipeline(yaml, "test.yaml"), Device{DeviceKind::Cuda, 0}, RunOptions{});
  EXPECT_EQ(decoder_of(stats), "h264 (software; NVDEC: on_error: stop needs the software decoder's reports of damaged frames)");
}

// Each slot's stream is held by a spin kernel right before it reads the decoded frame,
// while the source thread runs ahead decoding into FFmpeg's pool: a frame let go before
// the slot completed would be overwritten by a later picture.
TEST_F(NvdecTest, FramesStayOwnedWhileASlotIsLate) {
  FP_REQUIRE_GPU();
  const auto file = make_h264("clip.mp4", 320, 240, 24);
  RunOptions late;
  late.slots = 2;
  late.queue_depth = 4;
  late.hooks.before_upload = [](FrameContext& context) { cuda::spin(20000.0, context.stream); };
  run(file, "nvdec", "late", late);
  run(file, "software", "software");
  expect_same_outputs("late", "software", 24);
}

TEST_F(NvdecTest, OneTwoAndThreeSlotsGiveTheSameFrames) {
  FP_REQUIRE_GPU();
  const auto file = make_h264("clip.mp4", 320, 240, 30);
  run(file, "software", "software");
  for (int slots : {1, 2, 3}) {
    RunOptions options;
    options.slots = slots;
    run(file, "nvdec", "slots" + std::to_string(slots), options);
    expect_same_outputs("slots" + std::to_string(slots), "software", 30);
  }
}

// 4:4:4 comes out of NVDEC as YUV444P, which the executor does not read: auto decodes in
// software and says why; nvdec fails naming the reason, before any output is made.
TEST_F(NvdecTest, A444StreamFallsBackUnderAutoAndFailsUnderNvdec) {
  FP_REQUIRE_GPU();
  fs::path file;
  try {
    file = make_h264("clip444.mp4", 320, 240, 10, AV_PIX_FMT_YUV444P);
  } catch (const std::runtime_error& e) {
    GTEST_SKIP() << e.what();
  }
  const auto stats = run(file, "auto", "auto");
  EXPECT_EQ(stats.frames, 10);
  EXPECT_NE(decoder_of(stats).find("h264 (software; NVDEC: the stream is yuv444p"), std::string::npos)
      << decoder_of(stats);
  try {
    run(file, "nvdec", "nvdec");
    ADD_FAILURE() << "decode: nvdec ran a 4:4:4 stream";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("decode: nvdec: the stream is yuv444p"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir_ / "nvdec.y4m"));
}

// Every buffer is pooled: after the first frames, neither device memory nor the process's
// resident memory grows, frame after frame (a leaked decoder surface or event would).
// Run serially (ctest RUN_SERIAL): free device memory is the whole GPU's.
TEST_F(NvdecTest, MemoryStaysFlatOverALongRun) {
  FP_REQUIRE_GPU();
  // The sanitizers (small-sizes mode) run several processes on the GPU at once and keep
  // their own records in this one: neither memory figure would be this run's.
  if (small_sizes()) GTEST_SKIP() << "memory is measured without compute-sanitizer";
  const int frames = small_sizes() ? 300 : 2000;
  VideoWriteSpec spec{.encoder = "libx264", .muxer = "mp4", .gop = 30};
  spec.encoder_options = "preset=ultrafast";
  const fs::path file = dir_ / "long.mp4";
  write_video(spec, file.string(), testsrc_frames(160, 120, frames));

  const int settle = frames / 10;  // pools are full by then
  int seen = 0;
  long long device_at_settle = 0;
  long long device_at_end = 0;
  long long resident_at_settle = 0;
  long long resident_at_end = 0;
  RunOptions options;
  options.hooks.before_upload = [&](FrameContext&) {
    ++seen;
    if (seen == settle) {
      device_at_settle = device_used_bytes();
      resident_at_settle = resident_bytes();
    } else if (seen == frames) {
      device_at_end = device_used_bytes();
      resident_at_end = resident_bytes();
    }
  };
  const std::string yaml = "stages:\n"
                           "  - {id: in, type: decode, uri: '" + file.string() + "', decode: nvdec}\n"
                           "  - {id: smooth, type: mean_smooth, radius: 1}\n"
                           "  - {id: hist, type: luma_histogram, output: null}\n"
                           "  - {id: out, type: encode, output: null}\n";
  const auto stats = run_pipeline(parse_pipeline(yaml, "test.yaml"), Device{DeviceKind::Cuda, 0}, options);
  ASSERT_EQ(stats.frames, frames);
  ASSERT_EQ(seen, frames);
  EXPECT_LE(device_at_end - device_at_settle, 0) << "device memory grew from frame " << settle << " to " << frames;
  // The allocator may keep a page or two more; a leak of even 1 KiB a frame would exceed it.
  EXPECT_LE(resident_at_end - resident_at_settle, 1 << 20)
      << "resident memory grew from " << resident_at_settle << " to " << resident_at_end << " bytes";
}

}  // namespace
}  // namespace fp::test
