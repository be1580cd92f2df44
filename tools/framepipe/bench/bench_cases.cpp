// The kernels `framepipe bench` times, on frames of the synthetic test source (noise 20,
// like config/default.yaml). Inputs rotate over enough frames to exceed the GPU's L2
// cache, so memory-bound kernels are timed reading device memory, not the cache.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <utility>

#include "core/host_image.hpp"
#include "core/ops/tile_layout.hpp"
#include "cpu/luma_histogram.hpp"
#include "cpu/mean_smooth.hpp"
#include "cpu/thinning.hpp"
#include "cuda/device_image.hpp"
#include "cuda/luma_histogram.hpp"
#include "cuda/mean_smooth.hpp"
#include "cuda/nlmeans.hpp"
#include "cuda/pyramid_fusion.hpp"
#include "cuda/thinning.hpp"
#include "cuda/tile.hpp"
#include "media/frame_source.hpp"
#include "tools/framepipe/bench/bench_case.hpp"

namespace fp::bench {

namespace {

using DeviceU8 = cuda::DeviceImage<std::uint8_t>;
constexpr double kRotationBytes = 128.0 * 1024 * 1024;  // well above the H100's 50 MB L2

// Device copies of consecutive test-source frames' luma, handed out in turn.
class InputSet {
 public:
  InputSet(int width, int height, int count) {
    auto source = open_source(fmt::format("testsrc://{}x{}@30?noise=20&frames={}", width, height, count));
    while (auto frame = source->read()) {
      DeviceU8 image(width, height);
      cuda::upload(frame->luma().cview(), image.view(), nullptr);
      images_.push_back(std::move(image));
    }
    cuda::check(cudaStreamSynchronize(nullptr), "upload of benchmark frames");
  }
  ConstImageU8 next() {
    next_ = (next_ + 1) % images_.size();
    return images_[next_].view();
  }
  std::size_t size() const { return images_.size(); }

 private:
  std::vector<DeviceU8> images_;
  std::size_t next_ = 0;
};

int rotation_count(int width, int height, int images_per_run) {
  const double bytes = static_cast<double>(width) * height * images_per_run;
  return std::clamp(static_cast<int>(kRotationBytes / bytes) + 1, 2, 64);
}

struct Buffers {
  std::unique_ptr<InputSet> inputs;
  std::unique_ptr<InputSet> inputs_b;
  DeviceU8 output;
  cuda::DeviceArray<std::uint8_t> workspace;
  cuda::DeviceArray<cuda::LumaStatsDevice> stats;
};

BenchCase make_case(const std::string& stage, int w, int h, std::string parameters, double min_bytes,
                    std::shared_ptr<Buffers> buffers, std::function<void(Buffers&, cudaStream_t)> body) {
  BenchCase c;
  c.stage = stage;
  c.width = w;
  c.height = h;
  c.parameters = std::move(parameters);
  c.min_bytes = min_bytes;
  Buffers* raw = buffers.get();
  c.run = [raw, body = std::move(body)](cudaStream_t stream) { body(*raw, stream); };
  c.resources = std::move(buffers);
  return c;
}

struct ThinningInput {
  DeviceU8 image;
  int threshold = 0;
  int passes = 0;  // Zhang-Suen passes to convergence: the time grows with them
};

// The frame thinning is benchmarked on: the test frame smoothed (r = 2) as in
// config/default.yaml, its Otsu threshold, and the passes it takes (counted on the CPU).
ThinningInput thinning_input(int w, int h) {
  auto source = open_source(fmt::format("testsrc://{}x{}@30?noise=20&frames=1", w, h));
  auto frame = source->read();
  HostImageU8 smooth(w, h);
  cpu::mean_smooth(frame->luma().cview(), smooth.view(), 2);
  const int threshold = cpu::otsu_threshold(cpu::histogram(smooth.view()));
  HostImageU8 binary(w, h);
  cpu::binarize(std::as_const(smooth).view(), binary.view(), threshold);
  const int passes = cpu::zhang_suen(binary.view());
  DeviceU8 image(w, h);
  cuda::upload(std::as_const(smooth).view(), image.view(), nullptr);
  cuda::check(cudaStreamSynchronize(nullptr), "upload of the thinning frame");
  return {std::move(image), threshold, passes};
}

}  // namespace

std::vector<BenchCase> make_bench_cases(int w, int h, const std::string& stage) {
  std::vector<BenchCase> cases;
  const double pixels = static_cast<double>(w) * h;
  auto wanted = [&](const char* name) { return stage.empty() || stage == name; };

  if (wanted("luma_histogram")) {
    auto b = std::make_shared<Buffers>();
    b->inputs = std::make_unique<InputSet>(w, h, rotation_count(w, h, 1));
    const std::size_t bytes = cuda::luma_stats_workspace_bytes(w, h);
    b->workspace = cuda::DeviceArray<std::uint8_t>(bytes);
    b->stats = cuda::DeviceArray<cuda::LumaStatsDevice>(1);
    cuda::init_luma_stats_workspace(b->workspace.get(), bytes, nullptr);
    cases.push_back(make_case("luma_histogram", w, h, "bins+mean+otsu", pixels, b,
                              [bytes](Buffers& x, cudaStream_t s) {
                                cuda::luma_stats(x.inputs->next(), x.stats.get(), x.workspace.get(), bytes, s);
                              }));
  }
  if (wanted("mean_smooth")) {
    auto b = std::make_shared<Buffers>();
    b->inputs = std::make_unique<InputSet>(w, h, rotation_count(w, h, 2));
    b->output = DeviceU8(w, h);
    for (int r : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 32}) {
      cases.push_back(make_case("mean_smooth", w, h, fmt::format("radius={}", r), 2 * pixels, b,
                                [r](Buffers& x, cudaStream_t s) {
                                  cuda::mean_smooth(x.inputs->next(), x.output.view(), r, s);
                                }));
    }
  }
  if (wanted("nlmeans")) {
    auto b = std::make_shared<Buffers>();
    b->inputs = std::make_unique<InputSet>(w, h, 2);
    b->output = DeviceU8(w, h);
    for (auto [patch, search] : {std::pair{7, 21}, std::pair{5, 15}, std::pair{3, 11}}) {
      ops::NlmeansParams p;
      p.h = 10;
      p.patch = patch;
      p.search = search;
      cases.push_back(make_case("nlmeans", w, h, fmt::format("patch={} search={} h=10", patch, search), 2 * pixels, b,
                                [p](Buffers& x, cudaStream_t s) { cuda::nlmeans(x.inputs->next(), x.output.view(), p, s); }));
    }
  }
  if (wanted("pyramid_fusion")) {
    auto b = std::make_shared<Buffers>();
    b->inputs = std::make_unique<InputSet>(w, h, rotation_count(w, h, 3));
    b->inputs_b = std::make_unique<InputSet>(w, h, 2);
    b->output = DeviceU8(w, h);
    const std::size_t bytes = cuda::pyramid_fusion_workspace_bytes(w, h, 5);
    b->workspace = cuda::DeviceArray<std::uint8_t>(bytes);
    for (auto [rule, name] : {std::pair{ops::FusionRule::MaxEnergy, "max_energy"},
                              std::pair{ops::FusionRule::Average, "average"}}) {
      ops::FusionParams p;
      p.levels = 5;
      p.rule = rule;
      cases.push_back(make_case("pyramid_fusion", w, h, fmt::format("2 inputs, levels=5 rule={}", name), 3 * pixels,
                                b, [p, bytes](Buffers& x, cudaStream_t s) {
                                  cuda::pyramid_fusion(x.inputs->next(), x.inputs_b->next(), x.output.view(), p,
                                                       x.workspace.get(), bytes, s);
                                }));
    }
  }
  if (wanted("thinning")) {
    auto b = std::make_shared<Buffers>();
    auto prepared = thinning_input(w, h);
    const int threshold = prepared.threshold;
    auto input = std::make_shared<DeviceU8>(std::move(prepared.image));
    b->output = DeviceU8(w, h);
    b->workspace = cuda::DeviceArray<std::uint8_t>(cuda::thinning_workspace_bytes(w, h));
    cases.push_back(make_case("thinning", w, h,
                              fmt::format("test frame, otsu={}, {} passes", threshold, prepared.passes),
                              2 * pixels, b, [input, threshold](Buffers& x, cudaStream_t s) {
                                cuda::thinning(input->view(), x.output.view(), threshold, x.workspace.get(), s);
                              }));
  }
  if (wanted("tile")) {
    // Three inputs in a row, as config/default.yaml's compare (luma: the chroma planes are
    // the same copies at a quarter of the size).
    auto b = std::make_shared<Buffers>();
    b->inputs = std::make_unique<InputSet>(w, h, rotation_count(w, h, 6));
    const auto layout = ops::tile_layout(3, 0, w, h);
    b->output = DeviceU8(layout.width, layout.height);
    cases.push_back(make_case("tile", w, h, "3 inputs in a row, luma", 6 * pixels, b,
                              [origins = layout.luma](Buffers& x, cudaStream_t s) {
                                const std::vector<ConstImageU8> planes = {x.inputs->next(), x.inputs->next(),
                                                                          x.inputs->next()};
                                cuda::tile_plane(planes, origins, x.output.view(), std::nullopt, s);
                              }));
  }
  return cases;
}

}  // namespace fp::bench
