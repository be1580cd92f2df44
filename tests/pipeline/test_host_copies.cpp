// HostCopies: which planes of a node's output cross PCIe, on a pretend device (host memory
// labelled as device memory, every copy counted), so that the plan runs without a GPU.
#include <gtest/gtest.h>

#include <cstring>

#include "core/frame_pool.hpp"
#include "pipeline/config/loader.hpp"
#include "pipeline/definition/graph.hpp"
#include "pipeline/engine/host_copies.hpp"

namespace fp::test {
namespace {

// FrameSlots whose "device" frames are fresh host buffers: uploads and downloads are real
// copies, counted in bytes like CudaFrameSlots counts them.
class PretendDeviceSlots final : public FrameSlots {
 public:
  PretendDeviceSlots(int width, int height) : device_(width, height), host_(width, height) {}
  int count() const override { return 1; }
  FrameContext& context(int) override { return context_; }
  Frame to_device(const Frame& frame, int, bool with_chroma) override {
    // An NVDEC frame is on the device already, its chroma NV12 (split only for a stage
    // that reads chroma, which these tests do not have).
    if (frame.location == MemoryLocation::Device) return frame;
    Frame out = frame;
    out.location = MemoryLocation::Device;
    out.planes[0] = copy(frame.planes[0], device_.acquire_luma(), uploaded_);
    for (int p = 1; p < 3; ++p)
      out.planes[p] = with_chroma ? copy(frame.planes[p], device_.acquire_chroma(), uploaded_) : Plane{};
    return out;
  }
  Frame to_host(const Frame& frame, int slot) override {
    Frame out = frame;
    out.location = MemoryLocation::Host;
    for (int p = 0; p < 3; ++p) out.planes[p] = plane_to_host(frame, p, slot);
    return out;
  }
  Plane plane_to_host(const Frame& frame, int plane, int) override {
    if (frame.location == MemoryLocation::Host) return frame.planes[plane];
    if (plane == 1 && frame.layout == PlaneLayout::NV12) return copy(frame.planes[1], host_.acquire_interleaved_chroma(), downloaded_, 2);
    return copy(frame.planes[plane], plane == 0 ? host_.acquire_luma() : host_.acquire_chroma(), downloaded_);
  }
  void begin_stage(int, int) override {}
  void end_stage(int, int) override {}
  void submit(int) override {}
  void wait(int, std::vector<double>&) override {}
  void wait_idle() noexcept override {}
  std::int64_t bytes_uploaded() const override { return uploaded_; }
  std::int64_t bytes_downloaded() const override { return downloaded_; }

 private:
  static Plane copy(const Plane& from, Plane to, std::int64_t& bytes, int bytes_per_sample = 1) {
    const auto row = static_cast<std::size_t>(from.width) * static_cast<std::size_t>(bytes_per_sample);
    for (int y = 0; y < from.height; ++y) std::memcpy(to.data + y * to.pitch, from.data + y * from.pitch, row);
    bytes += static_cast<std::int64_t>(row) * from.height;
    return to;
  }

  FrameContext context_;
  FramePool device_;
  FramePool host_;
  std::int64_t uploaded_ = 0;
  std::int64_t downloaded_ = 0;
};

constexpr int kWidth = 32;
constexpr int kHeight = 16;
constexpr std::int64_t kLuma = kWidth * kHeight;
constexpr std::int64_t kChroma = (kWidth / 2) * (kHeight / 2);

class HostCopiesTest : public ::testing::Test {
 protected:
  // The pipeline's graph, with a decoded host frame for the source (node 0) in a slot.
  void plan(const std::string& stages) {
    definition_ = parse_pipeline("input: testsrc://32x16@10\nstages:\n" + stages, "test.yaml");
    graph_ = std::make_unique<PipelineGraph>(definition_);
    copies_ = std::make_unique<HostCopies>(*graph_);
    const std::size_t nodes = graph_->nodes().size();
    work_.sources.assign(nodes, Frame{});
    work_.frames.assign(nodes, Frame{});
    work_.host_planes.assign(nodes, {});
    FramePool pool(kWidth, kHeight);
    Frame decoded = pool.acquire();
    for (int p = 0; p < 3; ++p)
      for (int y = 0; y < decoded.planes[p].height; ++y)
        std::memset(decoded.planes[p].data + y * decoded.planes[p].pitch, 10 + p, decoded.planes[p].width);
    work_.sources[0] = decoded;
    work_.frames[0] = slots_.to_device(decoded, 0, copies_->uploads_chroma(0));
  }
  // Node `node` as a stage that wrote its luma (and its chroma when `chroma`) and took the
  // rest from node `from`.
  void stage_output(std::size_t node, std::size_t from, bool chroma) {
    Frame out = work_.frames[from];
    out.planes[0] = device_.acquire_luma();
    if (chroma) out.planes[1] = device_.acquire_chroma(), out.planes[2] = device_.acquire_chroma();
    work_.frames[node] = out;
  }
  Frame host_frame(std::size_t node) { return copies_->host_frame(node, work_, slots_, 0); }

  PipelineDefinition definition_;
  std::unique_ptr<PipelineGraph> graph_;
  std::unique_ptr<HostCopies> copies_;
  PretendDeviceSlots slots_{kWidth, kHeight};
  FramePool device_{kWidth, kHeight};
  SlotWork work_;
};

TEST_F(HostCopiesTest, UnchangedChromaNeverCrossesAndSinksOfANodeShareOneDownload) {
  plan("  - {id: denoise, type: nlmeans}\n"
       "  - {id: a, type: encode, output: a.y4m}\n"
       "  - {id: b, type: encode, input: denoise, output: b.y4m}\n");
  EXPECT_FALSE(copies_->uploads_chroma(0));
  EXPECT_EQ(slots_.bytes_uploaded(), kLuma);  // the luma alone went up
  stage_output(1, 0, false);
  const Frame first = host_frame(1);
  const Frame second = host_frame(1);
  EXPECT_EQ(slots_.bytes_downloaded(), kLuma);  // one luma download for both sinks
  EXPECT_EQ(first.planes[0].data, second.planes[0].data);
  for (int p = 1; p < 3; ++p) EXPECT_EQ(first.planes[p].data, work_.sources[0].planes[p].data) << p;
  EXPECT_EQ(first.location, MemoryLocation::Host);
}

// An NVDEC frame (NV12 on the device) whose chroma no stage reads: the host frame is NV12,
// its chroma one download of the pairs as they are, shared by every sink of the node.
TEST_F(HostCopiesTest, AnNvdecFramesChromaComesDownAsItIsInOneCopy) {
  plan("  - {id: denoise, type: nlmeans}\n"
       "  - {id: a, type: encode, output: a.y4m}\n"
       "  - {id: b, type: encode, input: denoise, output: b.y4m}\n");
  Frame nvdec = device_.acquire();
  nvdec.location = MemoryLocation::Device;
  nvdec.layout = PlaneLayout::NV12;
  nvdec.planes[1] = device_.acquire_interleaved_chroma();
  nvdec.planes[2] = Plane{};
  for (int y = 0; y < kHeight / 2; ++y)
    for (int x = 0; x < kWidth; ++x) nvdec.planes[1].data[y * nvdec.planes[1].pitch + x] = static_cast<std::uint8_t>(x);
  work_.sources[0] = nvdec;
  work_.frames[0] = slots_.to_device(nvdec, 0, copies_->uploads_chroma(0));
  stage_output(1, 0, false);
  const std::int64_t before = slots_.bytes_downloaded();
  for (const std::size_t node : {0, 1, 1}) {
    const Frame host = host_frame(node);
    EXPECT_EQ(host.layout, PlaneLayout::NV12) << node;
    EXPECT_EQ(host.planes[2].data, nullptr) << node;
    const Plane& uv = host.planes[1];
    ASSERT_EQ(uv.width, kWidth / 2);
    ASSERT_EQ(uv.height, kHeight / 2);
    for (int y = 0; y < uv.height; ++y)
      for (int x = 0; x < kWidth; ++x) ASSERT_EQ(uv.data[y * uv.pitch + x], x) << node;
  }
  // The source's luma, the stage's, and the chroma pairs once for all three host frames.
  EXPECT_EQ(slots_.bytes_downloaded() - before, 2 * kLuma + 2 * kChroma);
}

TEST_F(HostCopiesTest, APassedThroughFrameIsTheDecodedOne) {
  plan("  - {id: hist, type: luma_histogram, output: h.jsonl}\n"
       "  - {id: out, type: encode, output: a.y4m}\n");
  work_.frames[1] = work_.frames[0];
  const Frame host = host_frame(1);
  EXPECT_EQ(slots_.bytes_downloaded(), 0);
  for (int p = 0; p < 3; ++p) EXPECT_EQ(host.planes[p].data, work_.sources[0].planes[p].data) << p;
}

TEST_F(HostCopiesTest, NeutralChromaIsMadeOnTheHost) {
  plan("  - {id: skel, type: thinning}\n"
       "  - {id: out, type: encode, output: a.y4m}\n");
  stage_output(1, 0, false);
  const Frame host = host_frame(1);
  EXPECT_EQ(slots_.bytes_downloaded(), kLuma);
  for (int p = 1; p < 3; ++p) {
    const Plane& chroma = host.planes[p];
    ASSERT_EQ(chroma.width, kWidth / 2);
    ASSERT_EQ(chroma.height, kHeight / 2);
    for (int y = 0; y < chroma.height; ++y)
      for (int x = 0; x < chroma.width; ++x) ASSERT_EQ(chroma.data[y * chroma.pitch + x], 128) << p;
  }
}

TEST_F(HostCopiesTest, AStageThatReadsChromaGetsItUploadedAndItsOwnDownloaded) {
  plan("  - {id: smooth, type: mean_smooth}\n"
       "  - {id: grid, type: tile, inputs: [input, smooth]}\n"
       "  - {id: out, type: encode, output: a.y4m}\n");
  EXPECT_TRUE(copies_->uploads_chroma(0));
  EXPECT_EQ(slots_.bytes_uploaded(), kLuma + 2 * kChroma);
  stage_output(1, 0, false);
  stage_output(2, 1, true);
  const Frame host = host_frame(2);
  EXPECT_EQ(slots_.bytes_downloaded(), kLuma + 2 * kChroma);
  for (int p = 0; p < 3; ++p) EXPECT_NE(host.planes[p].data, work_.frames[2].planes[p].data) << p;
}

}  // namespace
}  // namespace fp::test
