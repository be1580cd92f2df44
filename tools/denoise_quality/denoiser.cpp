#include "tools/denoise_quality/denoiser.hpp"

#include <fmt/format.h>

#include <charconv>
#include <span>

#include "core/frame.hpp"
#include "core/frame_context.hpp"
#include "cpu/frame_ops.hpp"
#include "cpu/parallel.hpp"

namespace fp::quality {

namespace {

// A host plane over pixels that the caller keeps alive (no storage to share).
Plane borrowed_plane(ImageU8 image) { return Plane{nullptr, image.data, image.width, image.height, image.pitch}; }

class CpuDenoiser final : public Denoiser {
 public:
  void load(const GrayVideo& noisy) override { noisy_ = noisy; }

  GrayVideo run(const Method& method, double h) override {
    const auto params = method.with_h(h);
    const auto op = method.temporal ? cpu::make_temporal_nlmeans_op(params) : cpu::make_nlmeans_op(params.spatial);
    GrayVideo result(noisy_.width, noisy_.height, noisy_.frames);
    for (int n = 0; n < noisy_.frames; ++n) {
      Frame in;
      in.width = noisy_.width;
      in.height = noisy_.height;
      in.sequence = n;
      in.planes[0] = borrowed_plane(noisy_.frame(n));
      Frame out = in;  // as stages/luma_plane_stage.hpp: the input's frame, a fresh luma plane
      out.planes[0] = borrowed_plane(result.frame(n));
      FrameContext context;
      op->run(std::span<const Frame>(&in, 1), out, context);
      context.run_completions();
    }
    return result;
  }

  std::string description() const override { return fmt::format("cpu ({} threads)", cpu::worker_count()); }

 private:
  GrayVideo noisy_;
};

}  // namespace

std::unique_ptr<Denoiser> make_cpu_denoiser() { return std::make_unique<CpuDenoiser>(); }

std::unique_ptr<Denoiser> make_denoiser(const std::string& device) {
  if (device == "cpu") return make_cpu_denoiser();
  int ordinal = -1;
  if (device == "cuda") {
    ordinal = 0;
  } else if (device.starts_with("cuda:")) {
    const char* end = device.data() + device.size();
    const auto [ptr, ec] = std::from_chars(device.data() + 5, end, ordinal);
    if (ec != std::errc{} || ptr != end || ordinal < 0) ordinal = -1;
  }
  if (ordinal < 0) throw UsageError(fmt::format("device '{}': expected cpu, cuda or cuda:N", device));
#ifdef FRAMEPIPE_WITH_CUDA
  return make_cuda_denoiser(ordinal);
#else
  throw UsageError(fmt::format("device '{}': this denoise-quality was built without CUDA", device));
#endif
}

}  // namespace fp::quality
