// A processing stage's per-frame work on one backend. The stage makes it once, in prepare(),
// from that backend's factory (cpu::make_*_op in cpu/, cuda::make_*_op in cuda/, declared
// for every build in cuda/frame_ops.hpp), and calls run() for every frame: the stage file
// holds the parameters, their checks and the output's shape, never backend code.
#pragma once

#include <span>

#include "core/frame.hpp"
#include "core/frame_context.hpp"

namespace fp::ops {

// The frames an op is made for: their luma size, how many are in flight at once (a GPU op
// keeps per-frame scratch for each slot, since slots run at once on their own streams), and
// the CUDA device they are on (-1 on the CPU).
struct OpShape {
  int width = 0;
  int height = 0;
  int slots = 1;
  int device = -1;
};

class FrameOp {
 public:
  virtual ~FrameOp() = default;
  // Computes `out` from `inputs`: on the CPU before it returns, on a GPU enqueued on
  // context.stream (host work that needs the results goes to context.when_complete). `out`
  // comes with the first input's planes and timing and the stage's fresh planes in place;
  // an op may replace planes (thinning sets neutral chroma).
  virtual void run(std::span<const Frame> inputs, Frame& out, FrameContext& context) = 0;
};

}  // namespace fp::ops
