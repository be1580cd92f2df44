// temporal_nlmeans' parameters (docs/stages.md, "temporal_nlmeans"), one definition for both
// backends: spatial nlmeans on the current frame plus, for each of the `frames` previous
// frames, a `temporal_search` window around the block's motion vector.
#pragma once

#include "core/ops/nlmeans_params.hpp"

namespace fp::ops {

// Previous frames a frame may be denoised with.
inline constexpr int kMaxTemporalFrames = 4;

struct TemporalNlmeansParams {
  NlmeansParams spatial;    // h, patch and search, on the current frame as nlmeans
  int frames = 2;           // previous frames searched, 0..kMaxTemporalFrames (0: spatial only)
  int temporal_search = 11; // side of the window searched in each previous frame, odd
  bool motion = true;       // block motion search; false: every vector is (0, 0)
  bool recursive = false;   // previous outputs instead of previous inputs
};

}  // namespace fp::ops
