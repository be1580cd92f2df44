#include "stages/registry.hpp"

#include <vector>

#include "stages/decode_stage.hpp"
#include "stages/encode_stage.hpp"
#include "stages/luma_histogram_stage.hpp"
#include "stages/mean_smooth_stage.hpp"
#include "stages/nlmeans_stage.hpp"
#include "stages/pyramid_fusion_stage.hpp"
#include "stages/temporal_nlmeans_stage.hpp"
#include "stages/thinning_stage.hpp"
#include "stages/tile_stage.hpp"

namespace fp {

std::span<const StageSpec> stage_registry() {
  static const std::vector<StageSpec> registry = {
      decode_stage_spec(),
      luma_histogram_stage_spec(),
      mean_smooth_stage_spec(),
      nlmeans_stage_spec(),
      temporal_nlmeans_stage_spec(),
      pyramid_fusion_stage_spec(),
      thinning_stage_spec(),
      tile_stage_spec(),
      encode_stage_spec(),
  };
  return registry;
}

const StageSpec* find_stage(const std::string& type) {
  for (const auto& spec : stage_registry())
    if (spec.type == type) return &spec;
  return nullptr;
}

}  // namespace fp
