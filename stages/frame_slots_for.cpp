#include "stages/frame_slots_for.hpp"

#include "cpu/host_frame_slots.hpp"
#include "cuda/frame_slots.hpp"
#include "stages/backend.hpp"

namespace fp {

std::unique_ptr<FrameSlots> make_frame_slots(const Device& device, int slots, int nodes) {
  if (device.kind == DeviceKind::Cpu) return cpu::make_host_frame_slots(nodes);
  return FP_CUDA_ONLY(cuda::make_frame_slots(device.ordinal, slots, nodes));
}

}  // namespace fp
