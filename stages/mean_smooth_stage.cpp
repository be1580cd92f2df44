#include "stages/mean_smooth_stage.hpp"

#include "cpu/mean_smooth.hpp"
#include "stages/luma_plane_stage.hpp"

namespace fp {

namespace {

class MeanSmoothStage final : public LumaPlaneStage {
 public:
  explicit MeanSmoothStage(int radius) : radius_(radius) {}

  Frame process(std::span<const Frame> inputs) override {
    Frame out = output_like(inputs[0]);
    cpu::mean_smooth(inputs[0].luma().cview(), out.luma().view(), radius_);
    return out;
  }

 private:
  int radius_;
};

}  // namespace

StageSpec mean_smooth_stage_spec() {
  StageSpec spec;
  spec.type = "mean_smooth";
  spec.help = "mean of the luma over a (2r+1)x(2r+1) window, border replicate; cost independent of r";
  spec.params = {
      {.name = "radius", .type = ParamType::Int, .help = "window radius r",
       .default_value = std::int64_t{2}, .range = {.min = 1, .max = 1024}},
  };
  spec.create = [](const StageParams& params, const StageContext&) -> std::unique_ptr<Stage> {
    return std::make_unique<MeanSmoothStage>(static_cast<int>(params.integer("radius")));
  };
  return spec;
}

}  // namespace fp
