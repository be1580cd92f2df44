// The frame slots of a pipeline's device (core/frame_slots.hpp): the CPU's one slot, or a
// CUDA device's streams. Chosen here, where stages choose their backend (backend.hpp).
#pragma once

#include <memory>

#include "core/frame_slots.hpp"
#include "stages/stage.hpp"

namespace fp {

// `slots` frames in flight on `device` (the CPU always uses one); `nodes` is the number of
// graph nodes that may be bracketed. On CUDA this makes the device current on the calling
// thread, which must be the one that runs the graph.
std::unique_ptr<FrameSlots> make_frame_slots(const Device& device, int slots, int nodes);

}  // namespace fp
