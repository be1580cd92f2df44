// The memory the CUDA backend pools frames in: device memory for frames the kernels read
// and write, and page-locked host memory for frames that cross to or from the host, since
// only those copies can run asynchronously on a stream.
#pragma once

#include "core/frame_pool.hpp"

namespace fp::cuda {

// Device memory of CUDA device `ordinal` (allocated while that device is current).
PlaneMemory device_plane_memory(int ordinal);

// Page-locked (pinned) host memory.
PlaneMemory pinned_plane_memory();

}  // namespace fp::cuda
