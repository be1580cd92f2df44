// nlmeans' parameters (docs/stages.md, "nlmeans"), one definition for both backends. The
// CPU takes any odd sides; the GPU's schedule has upper limits (cuda/limits.hpp), which its
// launch function checks and the stage's parameter table applies on every device.
#pragma once

namespace fp::ops {

struct NlmeansParams {
  double h = 10.0;  // filtering strength, > 0 and finite
  int patch = 7;    // patch side, odd, >= 1
  int search = 21;  // search window side, odd, >= 1
};

}  // namespace fp::ops
