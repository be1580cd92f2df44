// Block motion search as temporal_nlmeans defines it (docs/stages.md), in integer arithmetic
// that the CPU (cpu/motion_search) and the GPU (cuda/motion_search) evaluate identically, so
// both find the same vector for every block. Usable from device code.
//
// Each frame has a pyramid of kMotionLevels levels: level 0 is the frame, level l + 1 is
// level l halved (sizes rounded up, each pixel the rounded mean of a 2x2 square, the last
// row and column repeated where the square runs off the level). Blocks are kMotionBlock
// pixels square on the frame (the last row and column of blocks cut by its edges) and
// kMotionBlock >> l on level l. The SAD of a block at vector v sums |current - previous|
// over the block's pixels inside the level, the previous frame read at the pixel + v
// with coordinates clamped to the level (its edge repeated).
//
// Coarse to fine: on the coarsest level every vector within kMotionRange >> l is tried;
// on each finer level the 3x3 vectors around twice the coarser best, and on the frame also
// (0, 0), all within kMotionRange >> l. The best has the least SAD; ties go to the shorter
// |x| + |y|, then the smaller y, then the smaller x.
#pragma once

#include <cstdint>

#include "core/image_view.hpp"

namespace fp::ops {

inline constexpr int kMotionBlock = 16;
inline constexpr int kMotionLevels = 3;
inline constexpr int kMotionRange = 32;  // pixels on the frame, each way

struct MotionVector {
  std::int16_t x = 0;
  std::int16_t y = 0;
};

FP_HOST_DEVICE inline int motion_level_size(int frame_size, int level) {
  int n = frame_size;
  for (int l = 0; l < level; ++l) n = (n + 1) / 2;
  return n;
}

FP_HOST_DEVICE inline int motion_blocks(int frame_size) { return (frame_size + kMotionBlock - 1) / kMotionBlock; }

FP_HOST_DEVICE inline int clamp_to(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// Pixel (x, y) of the level below `finer` (a plane of the finer level).
FP_HOST_DEVICE inline std::uint8_t halved_pixel(ConstImageU8 finer, int x, int y) {
  const int x0 = 2 * x;
  const int y0 = 2 * y;
  const int x1 = clamp_to(x0 + 1, finer.width);
  const int y1 = clamp_to(y0 + 1, finer.height);
  const int sum = finer(x0, y0) + finer(x1, y0) + finer(x0, y1) + finer(x1, y1);
  return static_cast<std::uint8_t>((sum + 2) >> 2);
}

// The SAD of block (bx, by) on one level between `current` and `previous` at vector (vx, vy).
FP_HOST_DEVICE inline std::int32_t block_sad(ConstImageU8 current, ConstImageU8 previous, int level, int bx, int by,
                                             int vx, int vy) {
  const int side = kMotionBlock >> level;
  const int x_end = bx * side + side < current.width ? bx * side + side : current.width;
  const int y_end = by * side + side < current.height ? by * side + side : current.height;
  std::int32_t sad = 0;
  for (int y = by * side; y < y_end; ++y) {
    const std::uint8_t* cur = current.row(y);
    const std::uint8_t* prev = previous.row(clamp_to(y + vy, previous.height));
    for (int x = bx * side; x < x_end; ++x) {
      const int d = static_cast<int>(cur[x]) - static_cast<int>(prev[clamp_to(x + vx, previous.width)]);
      sad += d < 0 ? -d : d;
    }
  }
  return sad;
}

// Whether candidate a beats candidate b (the order above).
FP_HOST_DEVICE inline bool motion_better(std::int32_t sad_a, int ax, int ay, std::int32_t sad_b, int bx, int by) {
  if (sad_a != sad_b) return sad_a < sad_b;
  const int len_a = (ax < 0 ? -ax : ax) + (ay < 0 ? -ay : ay);
  const int len_b = (bx < 0 ? -bx : bx) + (by < 0 ? -by : by);
  if (len_a != len_b) return len_a < len_b;
  if (ay != by) return ay < by;
  return ax < bx;
}

}  // namespace fp::ops
