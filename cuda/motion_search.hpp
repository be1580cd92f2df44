// Block motion search on the GPU, as core/ops/motion_search.hpp defines it (cpu/motion_search
// is the readable twin): the same integer SADs and the same tie rule, so both find the same
// vector for every block. One warp per block; all asynchronous on a stream.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "core/image_view.hpp"
#include "core/ops/motion_search.hpp"

namespace fp::cuda {

// A frame's pyramid: level 0 is the frame, levels 1.. its halvings (device planes).
struct MotionLevels {
  ConstImageU8 level[ops::kMotionLevels];
};

// Writes levels 1.. of `frame` into `halves` (kMotionLevels - 1 planes of the sizes
// ops::motion_level_size gives).
void build_motion_levels(ConstImageU8 frame, const ImageU8* halves, cudaStream_t stream);

// Previous frames one motion_search launch takes at most.
inline constexpr int kMaxMotionTargets = 4;

// The vector and SAD of every block of `current` (ops::motion_blocks columns and rows, row by
// row) into each of `count` previous frames, in one launch: frame i's vectors and SADs at
// i * blocks, their sum added to sad_sums[i] (which the caller zeroes). Without `motion`
// every vector is (0, 0).
void motion_search(const MotionLevels& current, const MotionLevels* previous, int count, bool motion,
                   ops::MotionVector* vectors, std::int32_t* sads, unsigned long long* sad_sums, cudaStream_t stream);

}  // namespace fp::cuda
