// pyramid_fusion's parameters (docs/stages.md, "pyramid_fusion"), one definition for both
// backends (the GPU allows at most cuda::kMaxFusionLevels levels, cuda/limits.hpp).
#pragma once

#include <vector>

namespace fp::ops {

enum class FusionRule { Average, MaxAbs, MaxEnergy };

struct FusionParams {
  int levels = 5;  // >= 1, the base level included
  FusionRule rule = FusionRule::MaxEnergy;
  std::vector<float> gain;  // per detail level, finest first; missing entries are 1
};

}  // namespace fp::ops
