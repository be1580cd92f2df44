// temporal_nlmeans on the GPU: the definition in cpu/temporal_nlmeans.hpp (the reference).
// cuda::nlmeans_sums (cuda/nlmeans.hpp) sums the current frame's window; temporal_finish adds
// the previous frames' windows and divides.
//
// One warp owns a 32x16 output region, two motion blocks side by side; a block of 4 warps
// four such regions stacked. For each previous frame used the warp loads its own patch rows
// (the current frame, in registers for patches up to 7) and, per motion block, the window of
// the previous frame around the block's vector (16 + 2T + 2K pixels square) with each
// partner patch's sum of squares, into shared memory. Then, as the spatial kernel does, each
// lane walks its column down the region once per offset: the patch SSD is
// SQ(p) + SQ(q) - 2 sum E(p) E(q), the cross term from dp4a on 4-byte words, summed over the
// patch rows in a ring of registers. Exact in integers; the weights are exp2 of the SSD
// scaled, summed in float. How many previous frames are used is read from the device
// (ops::take_history, evaluated there): the host never waits.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/image_view.hpp"
#include "core/ops/motion_search.hpp"
#include "core/ops/temporal_history.hpp"
#include "core/ops/temporal_nlmeans_params.hpp"

namespace fp::cuda {

// Throws std::invalid_argument naming the parameter when `params` is outside what the GPU takes.
void check_temporal_nlmeans_params(const ops::TemporalNlmeansParams& params);

// The previous frames that may be used, nearest first, and the current frame's block
// vectors into each (device arrays of ops::motion_blocks(w) x ops::motion_blocks(h)).
struct TemporalFrames {
  ConstImageU8 frame[ops::kMaxTemporalFrames];
  const ops::MotionVector* vectors[ops::kMaxTemporalFrames] = {};
  int count = 0;  // how many are set
};

// Evaluates ops::take_history on the device: resets `history` first when `reset`, reads the
// nearest previous frame's SAD sum from *sad_sum (when history->kept > 0) and writes the
// number of previous frames to use into *use. One thread.
void decide_history(ops::TemporalHistory* history, const unsigned long long* sad_sum, bool reset,
                    std::int64_t pixels, int frames, int* use, cudaStream_t stream);

// dst = (spatial_num + sum of w * I(q)) / (spatial_den + sum of w), the sums over the first
// *use (<= previous.count) previous frames' windows, rounded half up and clamped; spatial_num
// and spatial_den are cuda::nlmeans_sums of the current frame. One launch, no allocation.
void temporal_finish(ConstImageU8 current, const TemporalFrames& previous, const int* use,
                     const ops::TemporalNlmeansParams& params, ConstImageF32 spatial_num, ConstImageF32 spatial_den,
                     ImageU8 dst, cudaStream_t stream);

// The same unrounded, into a float plane: what the tests compare with the CPU's definition.
void temporal_finish_unrounded(ConstImageU8 current, const TemporalFrames& previous, const int* use,
                               const ops::TemporalNlmeansParams& params, ConstImageF32 spatial_num,
                               ConstImageF32 spatial_den, ImageF32 dst, cudaStream_t stream);

}  // namespace fp::cuda
