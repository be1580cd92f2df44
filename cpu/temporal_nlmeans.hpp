// temporal_nlmeans on the CPU, the definition (docs/stages.md) evaluated in double precision:
// the reference that the CUDA kernels are checked against, and the CPU backend.
//
// For pixel p of the current frame, with K = patch / 2, |P| = patch^2, S = search / 2 and
// T = temporal_search / 2:
//   out(p) = round(sum w(p, q) I(q) / sum w(p, q)), w = exp(-SSD(P(p), P(q)) / (|P| h^2))
//   (w = 1 where the SSD is 0), q over
//   - the current frame, q = p + d for d in [-S, S]^2 (spatial nlmeans), and
//   - each previous frame j used, q = p + v_j + d for d in [-T, T]^2, v_j the vector of
//     p's 16x16 block into frame j (core/ops/motion_search.hpp).
// Every frame is extended by reflect-101 (cpu/nlmeans.hpp) for patches and windows alike.
// Blocks are spread over all cores.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/image_view.hpp"
#include "core/ops/temporal_nlmeans_params.hpp"
#include "cpu/motion_search.hpp"
#include "cpu/nlmeans.hpp"

namespace fp::cpu {

// One previous frame searched: its pixels (an earlier input, or an earlier output when
// recursive) and the vectors of the current frame's blocks into it.
struct TemporalReference {
  ConstImageU8 frame;
  const MotionField* motion = nullptr;
};

// The weighted mean evaluated in double precision, unrounded: the definition, slow; what the
// tests compare the fast evaluation and the GPU's with.
void temporal_nlmeans_unrounded(ConstImageU8 current, std::span<const TemporalReference> previous,
                                const ops::TemporalNlmeansParams& params, ImageF32 dst);

// One worker's buffers for the previous frames' windows of a 16x16 block (the fast
// evaluation; sizes in temporal_nlmeans.cpp).
struct TemporalBlockScratch {
  std::vector<std::int32_t> current;   // the block and its patch margin, (bw + 2K) x (bh + 2K)
  std::vector<std::int32_t> window;    // a previous frame's window, (bw + 2K + 2T) x (bh + 2K + 2T)
  std::vector<std::int32_t> squares;   // one offset's squared differences over the block and margin
  std::vector<std::int32_t> columns;   // their sums down 2K+1 rows: bh x (bw + 2K)
  std::vector<float> values;           // the window's pixels as floats
  std::vector<std::int32_t> ssd;       // one output row's patch SSDs
  std::vector<float> num;              // bw x bh
  std::vector<float> den;
};

// What the fast evaluation keeps from one call to the next (the current frame's window sums,
// nlmeans' buffers, every worker's block buffers, all sized by the first call in the calling
// thread), so that no later call allocates: a worker's own buffers made the first time it
// ran a block came frames later on a machine of many cores (16: 20 allocations in 3 frames
// "once warm").
struct TemporalNlmeansScratch {
  std::vector<float> num;
  std::vector<float> den;
  NlmeansScratch spatial;
  std::vector<TemporalBlockScratch> workers;  // one per pool worker (cpu/parallel.hpp worker_count)
};

// The same rounded half up and clamped to 0..255, evaluated fast in float (nlmeans' vectorized
// kernel for the current frame, vectorizable loops for the previous frames' windows): within
// float error of the definition, as cpu::nlmeans is. What the CPU backend runs.
void temporal_nlmeans(ConstImageU8 current, std::span<const TemporalReference> previous,
                      const ops::TemporalNlmeansParams& params, ImageU8 dst, TemporalNlmeansScratch& scratch);
void temporal_nlmeans(ConstImageU8 current, std::span<const TemporalReference> previous,
                      const ops::TemporalNlmeansParams& params, ImageU8 dst);

// Throws std::invalid_argument naming the parameter when `params` cannot be evaluated.
void check_temporal_nlmeans_params(const ops::TemporalNlmeansParams& params);

}  // namespace fp::cpu
