// Block motion search on the CPU, as core/ops/motion_search.hpp defines it: the reference
// for cuda/motion_search and what temporal_nlmeans' CPU backend uses.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/image_view.hpp"
#include "core/ops/motion_search.hpp"

namespace fp::cpu {

// A frame's levels 1 .. kMotionLevels - 1 (level 0 is the frame itself, not copied).
class MotionPyramid {
 public:
  // Builds the levels of `frame`; allocates only when the size changes.
  void build(ConstImageU8 frame);
  // Level l of the frame last built; level 0 is `frame` itself, which the caller keeps.
  ConstImageU8 level(ConstImageU8 frame, int l) const;

 private:
  std::array<std::vector<std::uint8_t>, ops::kMotionLevels> pixels_;
  std::array<ConstImageU8, ops::kMotionLevels> views_{};
};

struct MotionField {
  int blocks_x = 0;
  int blocks_y = 0;
  std::vector<ops::MotionVector> vectors;  // row by row
  std::vector<std::int32_t> sads;          // each block's SAD at its vector, on the frame
  std::int64_t sad = 0;                    // their sum
  ops::MotionVector at(int bx, int by) const { return vectors[static_cast<std::size_t>(by) * blocks_x + bx]; }
};

// The vector of every block of `current` into `previous` (both with their pyramids), or,
// without `motion`, (0, 0) for every block with its SAD. Blocks are spread over all cores.
void motion_search(ConstImageU8 current, const MotionPyramid& current_levels, ConstImageU8 previous,
                   const MotionPyramid& previous_levels, bool motion, MotionField& out);

}  // namespace fp::cpu
