// thinning on the GPU: binarize (foreground when value > threshold), then Zhang-Suen
// thinning until a pass removes nothing; output 0/255, bit-identical to cpu::thinning.
//
// The whole operation is one cooperative kernel: the iterations and the convergence test
// run on the device, so a call is a single launch with no host round trip, and the
// threshold may come from device memory (an Otsu threshold computed by an earlier kernel).
//
// Two-phase, like CUB: ask thinning_workspace_bytes() at set-up and allocate it once; each
// call then takes that workspace. A workspace serves one call at a time (calls on several
// streams at once need one each); it needs no initialization, and one sized for a larger
// image serves a smaller one. The workspace must be 4-byte aligned (cudaMalloc's are).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <vector>

#include "core/image_view.hpp"

namespace fp::cuda {

// Device workspace bytes for a width x height image (> 0 for every size, even empty ones).
std::size_t thinning_workspace_bytes(int width, int height);

// src and dst are device planes of the same size, any pitch; they may be the same plane.
// `passes`, when not null, is a device int that receives the number of passes (pairs of
// sub-iterations, the last of which removes nothing) — cpu::zhang_suen's return value.
// Throws std::invalid_argument on mismatched sizes or a missing workspace, and
// std::runtime_error when the launch fails.
void thinning(ConstImageU8 src, ImageU8 dst, int threshold, void* workspace, cudaStream_t stream,
              int* passes = nullptr);

// The same with the threshold read on the device from `threshold` (a device int), so that
// the Otsu threshold of luma_histogram feeds it without a host round trip.
void thinning(ConstImageU8 src, ImageU8 dst, const int* threshold, void* workspace, cudaStream_t stream,
              int* passes = nullptr);

// How the kernel cuts an image into tiles (cuda/thinning.cu says what each field is): for
// timing them against one another (`framepipe bench --thinning-tilings`); `thinning` picks
// one by a cost model.
struct ThinningTiling {
  int passes_per_round = 0;  // K: passes between two grid barriers
  int tile_words = 0;        // own 32-pixel words across a tile
  int rows_per_thread = 0;   // Q
  friend bool operator==(const ThinningTiling&, const ThinningTiling&) = default;
};

// Every tiling the kernel can run a width x height image (not empty) with on the current
// device; the first is the one `thinning` picks.
std::vector<ThinningTiling> thinning_tilings(int width, int height);

// `thinning` with one of thinning_tilings(src's size) instead of the kernel's pick; the same
// output. Throws std::invalid_argument for another tiling.
void thinning(ConstImageU8 src, ImageU8 dst, int threshold, void* workspace, cudaStream_t stream,
              const ThinningTiling& tiling, int* passes = nullptr);

}  // namespace fp::cuda
