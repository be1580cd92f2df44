// Where a stage's frame buffers live for the pipeline's device: host memory on the CPU,
// device memory of the chosen GPU on CUDA.
#pragma once

#include "core/frame_pool.hpp"
#include "stages/stage.hpp"

namespace fp {

PlaneMemory plane_memory_for(const Device& device);

// Host memory for frames that cross to the device: page-locked on CUDA, so that the copy is
// asynchronous; ordinary memory on the CPU.
PlaneMemory host_staging_memory_for(const Device& device);

}  // namespace fp
