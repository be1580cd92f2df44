#include "stages/thinning_stage.hpp"

#include <cstring>

#include "cpu/luma_histogram.hpp"
#include "cpu/thinning.hpp"
#include "stages/luma_plane_stage.hpp"

namespace fp {

namespace {

constexpr int kOtsu = -1;

class ThinningStage final : public LumaPlaneStage {
 public:
  explicit ThinningStage(int threshold) : threshold_(threshold) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    VideoInfo info = LumaPlaneStage::prepare(inputs);
    // A skeleton is black and white: neutral chroma, made once and shared by every frame.
    FramePool chroma_pool(info.width, info.height);
    Frame gray = chroma_pool.acquire();
    for (int p = 1; p < 3; ++p) {
      auto& plane = gray.planes[p];
      for (int y = 0; y < plane.height; ++y) std::memset(plane.view().row(y), 128, plane.width);
      neutral_chroma_[p - 1] = plane;
    }
    return info;
  }

  Frame process(std::span<const Frame> inputs) override {
    Frame out = output_like(inputs[0]);
    const auto src = inputs[0].luma().cview();
    const int threshold = threshold_ == kOtsu ? cpu::otsu_threshold(cpu::histogram(src)) : threshold_;
    cpu::thinning(src, out.luma().view(), threshold);
    out.planes[1] = neutral_chroma_[0];
    out.planes[2] = neutral_chroma_[1];
    return out;
  }

 private:
  int threshold_;
  Plane neutral_chroma_[2];
};

}  // namespace

StageSpec thinning_stage_spec() {
  StageSpec spec;
  spec.type = "thinning";
  spec.help = "binarizes the luma (value > threshold) and thins it to a skeleton (Zhang-Suen); output 0/255";
  spec.params = {
      {.name = "threshold", .type = ParamType::Int,
       .help = "binarization threshold, or otsu to compute it per frame from the histogram",
       .default_value = std::string("otsu"), .range = {.min = 0, .max = 255}, .keywords = {"otsu"}},
  };
  spec.create = [](const StageParams& params, const StageContext&) -> std::unique_ptr<Stage> {
    const int threshold = params.is_keyword("threshold") ? kOtsu : static_cast<int>(params.integer("threshold"));
    return std::make_unique<ThinningStage>(threshold);
  };
  return spec;
}

}  // namespace fp
