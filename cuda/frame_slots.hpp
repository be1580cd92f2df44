// Frame slots on a CUDA device (core/frame_slots.hpp): a stream, a completion event and a
// pair of timing events per stage for each slot. The header includes no CUDA header, so
// every build can name the factory (stages/frame_slots_for.cpp chooses it).
#pragma once

#include <memory>

#include "core/frame_slots.hpp"

namespace fp::cuda {

// `slots` frames in flight on device `ordinal`; `nodes` graph nodes may be bracketed. Makes
// the device current on the calling thread, which must be the one that runs the graph.
std::unique_ptr<FrameSlots> make_frame_slots(int ordinal, int slots, int nodes);

}  // namespace fp::cuda
