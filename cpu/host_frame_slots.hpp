// Frame slots on the CPU (core/frame_slots.hpp): one slot, each stage run to completion in
// its call, timed by the host clock.
#pragma once

#include <memory>

#include "core/frame_slots.hpp"

namespace fp::cpu {

// `nodes`: the number of graph nodes that may be bracketed.
std::unique_ptr<FrameSlots> make_host_frame_slots(int nodes);

}  // namespace fp::cpu
