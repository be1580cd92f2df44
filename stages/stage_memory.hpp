// Where a stage's frame buffers live for the pipeline's device: host memory on the CPU,
// device memory of the chosen GPU on CUDA.
#pragma once

#include "core/frame_pool.hpp"
#include "stages/stage.hpp"

namespace fp {

PlaneMemory plane_memory_for(const Device& device);

// True when this framepipe was built with the CUDA backend.
bool cuda_backend_built();

}  // namespace fp
