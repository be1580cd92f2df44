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
#include "cuda/frame_ops.hpp"
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
  HostImageU8 expected;  // the CPU's skeleton, 0/255
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
  HostImageU8 expected(w, h);
  cpu::thinning(std::as_const(smooth).view(), expected.view(), threshold);
  DeviceU8 image(w, h);
  cuda::upload(std::as_const(smooth).view(), image.view(), nullptr);
  cuda::check(cudaStreamSynchronize(nullptr), "upload of the thinning frame");
  return {std::move(image), threshold, passes, std::move(expected)};
}

// Runs thinning once with `tiling` and throws unless it gives the CPU's skeleton: a tiling
// is timed only once it is known to be right on the frame it is timed on.
void check_tiling(const ThinningInput& input, Buffers& buffers, const cuda::ThinningTiling& tiling,
                  const std::string& name) {
  cuda::thinning(input.image.view(), buffers.output.view(), input.threshold, buffers.workspace.get(), nullptr, tiling);
  HostImageU8 got(input.expected.width(), input.expected.height());
  cuda::download(std::as_const(buffers.output).view(), got.view(), nullptr);
  cuda::check(cudaStreamSynchronize(nullptr), "thinning tiling check");
  for (int y = 0; y < got.height(); ++y)
    for (int x = 0; x < got.width(); ++x)
      if (got.view()(x, y) != input.expected.view()(x, y))
        throw std::runtime_error(fmt::format("thinning, {}: pixel ({}, {}) is {}, the CPU's {}", name, x, y,
                                             got.view()(x, y), input.expected.view()(x, y)));
}

// The work models of `--bounds estimate`: what each case's kernels must do per run, so that
// the measured median becomes a percentage of the device's peak (kernel_bounds.hpp). Bytes
// are each case's min_bytes. Instruction counts that no simple count of the code gives are
// Nsight Compute's smsp__inst_executed.sum (warp instructions) for the kernels of commit
// 212b006 on an H100 at 1080p (docs/bench/h100-212b006-issue21.md); a kernel rewritten since
// drifts from its model, which `--bounds ncu` does not. Kernels whose work is moving bytes
// get no instruction model (sm: null).
// The estimate's sm figure is issue-slot use (IPC / 4); ncu's "SM throughput" is the busiest
// of the SM's units, never lower: thinning issues in ~40% of its slots while its integer
// pipes are ~60% busy. nlmeans' per-offset count comes from patch 7 (nlmeans_kernel<3>); a
// smaller patch costs fewer instructions an offset, so the model reads high there.

// nlmeans: per pixel and search offset (s^2 of them), 0.385 warp instructions at patch 7
// = 12.3 thread instructions (351,987,688 for 1920x1080 x 441 offsets), and one ex2.approx
// on the XU (fast_exp2 in cuda/nlmeans.cu) for the weight.
WorkModel nlmeans_work(double pixels, int search) {
  const double pixel_offsets = pixels * search * search;
  return {"nlmeans_kernel", pixel_offsets * 0.385, pixel_offsets,
          fmt::format("{} offsets a pixel: 0.385 warp instructions (ncu 212b006) and 1 XU exp2 each", search * search)};
}

// thinning: per pixel and Zhang-Suen pass, 0.196 warp instructions (bit-packed, 32 pixels a
// word: 68,925,365 for 1920x1080 x 170 passes); no XU.
WorkModel thinning_work(double pixels, int passes) {
  return {"thinning_kernel", pixels * passes * 0.196, 0,
          fmt::format("{} passes: 0.196 warp instructions a pixel a pass (ncu 212b006)", passes)};
}

// pyramid_fusion, all five launches of 5 levels (two reduces, the top levels in one, two
// collapses): 13.8 warp instructions a level-0 pixel with max_energy (28,562,850 for
// 1920x1080; the level-0 collapse alone 7.2: the CPU's float operations, unfused), 9.8 with
// average (20,218,545: no energy sums). The small levels are bound by latency, which no
// count shows. No XU.
WorkModel fusion_work(double pixels, bool max_energy) {
  const double per_pixel = max_energy ? 13.8 : 9.8;
  return {"pyramid_fusion (all launches)", pixels * per_pixel, 0,
          fmt::format("{} warp instructions a pixel, all launches (ncu 212b006)", per_pixel)};
}

// luma_histogram, mean_smooth and tile read and write bytes with a few instructions each:
// bytes are their model.
WorkModel bytes_work(const char* kernel) { return {kernel, 0, 0, "bytes only: input read once, output written once"}; }

}  // namespace

const std::vector<std::string>& bench_stage_names() {
  static const std::vector<std::string> names = {"luma_histogram", "mean_smooth", "nlmeans", "temporal_nlmeans",
                                                 "pyramid_fusion", "thinning",    "tile"};
  return names;
}

std::vector<BenchCase> make_bench_cases(int w, int h, const std::vector<std::string>& stages, bool thinning_tilings) {
  std::vector<BenchCase> cases;
  const double pixels = static_cast<double>(w) * h;
  auto wanted = [&](const char* name) {
    return stages.empty() || std::find(stages.begin(), stages.end(), name) != stages.end();
  };

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
    cases.back().work = bytes_work("luma_stats kernels");
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
      cases.back().work = bytes_work("mean_smooth kernels");
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
      cases.back().work = nlmeans_work(pixels, search);
    }
  }
  if (wanted("temporal_nlmeans")) {
    // The stage's whole op per run: motion search into each previous frame, the history's
    // decision, the previous frames' sums, the spatial kernel and the copy kept. Consecutive
    // test-source frames in turn, so each run's history is the frames before it (but at the
    // rotation's wrap, one run in many, where the scene jumps back).
    auto b = std::make_shared<Buffers>();
    b->inputs = std::make_unique<InputSet>(w, h, rotation_count(w, h, 1));
    b->output = DeviceU8(w, h);
    for (const int frames : {2, 4}) {
      ops::TemporalNlmeansParams p;
      p.spatial.h = 10;
      p.frames = frames;
      std::shared_ptr<ops::FrameOp> op = cuda::make_temporal_nlmeans_op(p, {.width = w, .height = h, .slots = 1, .device = 0});
      cases.push_back(make_case(
          "temporal_nlmeans", w, h, fmt::format("frames={} patch=7 search=21 temporal_search=11 motion=block h=10", frames),
          2 * pixels, b, [op, w, h](Buffers& x, cudaStream_t s) {
            const ConstImageU8 in = x.inputs->next();
            Frame input;
            input.width = w;
            input.height = h;
            input.location = MemoryLocation::Device;
            input.planes[0] = {nullptr, const_cast<std::uint8_t*>(in.data), w, h, in.pitch};
            Frame out = input;
            const ImageU8 dst = x.output.view();
            out.planes[0] = {nullptr, dst.data, w, h, dst.pitch};
            FrameContext context;
            context.stream = s;
            const Frame inputs[] = {input};
            op->run(inputs, out, context);
          }));
      cases.back().work = bytes_work("temporal_nlmeans kernels (not modelled)");
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
      cases.back().work = fusion_work(pixels, rule == ops::FusionRule::MaxEnergy);
    }
  }
  if (wanted("thinning")) {
    auto b = std::make_shared<Buffers>();
    auto input = std::make_shared<ThinningInput>(thinning_input(w, h));
    const int threshold = input->threshold;
    const std::string frame = fmt::format("test frame, otsu={}, {} passes", threshold, input->passes);
    b->output = DeviceU8(w, h);
    b->workspace = cuda::DeviceArray<std::uint8_t>(cuda::thinning_workspace_bytes(w, h));
    if (!thinning_tilings) {
      cases.push_back(make_case("thinning", w, h, frame, 2 * pixels, b, [input, threshold](Buffers& x, cudaStream_t s) {
        cuda::thinning(input->image.view(), x.output.view(), threshold, x.workspace.get(), s);
      }));
      cases.back().work = thinning_work(pixels, input->passes);
    }
    const auto tilings = thinning_tilings ? cuda::thinning_tilings(w, h) : std::vector<cuda::ThinningTiling>{};
    for (std::size_t i = 0; i < tilings.size(); ++i) {
      const cuda::ThinningTiling t = tilings[i];
      const std::string name = fmt::format("K={} words={} Q={}{}", t.passes_per_round, t.tile_words,
                                           t.rows_per_thread, i == 0 ? " (chosen)" : "");
      check_tiling(*input, *b, t, name);
      cases.push_back(make_case("thinning", w, h, frame + ", " + name, 2 * pixels, b,
                                [input, threshold, t](Buffers& x, cudaStream_t s) {
                                  cuda::thinning(input->image.view(), x.output.view(), threshold, x.workspace.get(), s,
                                                 t);
                                }));
      cases.back().work = thinning_work(pixels, input->passes);
    }
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
    cases.back().work = bytes_work("tile_plane kernels");
  }
  return cases;
}

}  // namespace fp::bench
