// How many previous frames temporal_nlmeans uses for a frame (docs/stages.md): the rule
// both backends apply, the GPU on the device (its SAD never comes to the host).
//
// A frame after a reset (the first, one after a gap in the stream) has none. Otherwise it
// has the frames kept since, at most `frames`, unless its motion-compensated SAD against
// the previous frame jumps: more than 1.5 times the previous frame's plus 4 gray levels a
// pixel. That is a scene cut: the frame is denoised alone, and the history starts again
// from it. Integers only, so that the CPU and the GPU decide alike.
#pragma once

#include <cstdint>

#include "core/image_view.hpp"

namespace fp::ops {

struct TemporalHistory {
  int kept = 0;                 // previous frames usable (since the last reset or cut)
  std::int64_t last_sad = -1;   // the previous frame's SAD against its previous; -1: none
};

FP_HOST_DEVICE inline bool is_scene_cut(std::int64_t sad, std::int64_t last_sad, std::int64_t pixels) {
  return last_sad >= 0 && 2 * sad > 3 * last_sad + 8 * pixels;
}

// For a frame whose SAD against the previous frame is `sad` (ignored when history.kept is
// 0): the previous frames to use, the history updated to hold this frame too.
FP_HOST_DEVICE inline int take_history(TemporalHistory& history, std::int64_t sad, std::int64_t pixels, int frames) {
  int use = history.kept < frames ? history.kept : frames;
  if (history.kept == 0) {
    history.last_sad = -1;
  } else {
    if (is_scene_cut(sad, history.last_sad, pixels)) use = 0;
    history.last_sad = sad;
  }
  history.kept = use + 1 < frames ? use + 1 : frames;
  return use;
}

}  // namespace fp::ops
