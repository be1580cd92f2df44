#include "cuda/luma_stats_slots.hpp"

#include "cuda/cuda_check.hpp"
#include "cuda/stream.hpp"

namespace fp::cuda {

LumaStatsSlots::LumaStatsSlots(int slots, int width, int height)
    : workspace_bytes_(luma_stats_workspace_bytes(width, height)), results_(static_cast<std::size_t>(slots)) {
  // Cleared on a stream of their own, waited for here: not on the whole device, which in a
  // process running other streams would hold this set-up until their frames in flight are
  // done (and every stream's start-up after the one before).
  const Stream clear;
  for (int s = 0; s < slots; ++s) {
    workspaces_.emplace_back(workspace_bytes_);
    init_luma_stats_workspace(workspaces_.back().get(), workspace_bytes_, clear.get());
  }
  clear.synchronize();
}

LumaStatsDevice* LumaStatsSlots::compute(ConstImageU8 plane, int slot, cudaStream_t stream) {
  auto* result = results_.get() + slot;
  luma_stats(plane, result, workspaces_[static_cast<std::size_t>(slot)].get(), workspace_bytes_, stream);
  return result;
}

}  // namespace fp::cuda
