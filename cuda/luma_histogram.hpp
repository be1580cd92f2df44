// luma_histogram on the GPU: the 256 bins of an 8-bit plane, its mean and Otsu threshold,
// computed entirely on the device into a LumaStatsDevice, so that the host reads the result
// back with one asynchronous copy (into pinned memory) and waits on an event, never inside
// the call. The results equal cpu::luma_stats exactly (bins, mean and otsu).
//
// Two-phase, like CUB: ask luma_stats_workspace_bytes() at set-up, allocate that once, clear
// it once with init_luma_stats_workspace(), then call luma_stats() per frame with it. Every
// call leaves the workspace cleared again for the next one, so nothing is allocated or
// cleared per frame. One workspace serves one call at a time: calls that may run
// concurrently (other streams) need workspaces of their own.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "core/image_view.hpp"

namespace fp::cuda {

// Plain data, the same layout on the host and the device: copy it back byte for byte.
struct LumaStatsDevice {
  std::uint32_t bins[256];  // bins[v]: number of pixels of value v
  double mean;              // mean pixel value, 0 for an empty image
  std::int32_t otsu;        // Otsu threshold t: class 0 is [0, t], class 1 is [t+1, 255]
  std::uint32_t reserved;   // padding; written as 0
};

// Device workspace bytes that luma_stats needs for a width x height plane. Today the same
// small amount for every size; asked with the size so that callers never depend on that.
std::size_t luma_stats_workspace_bytes(int width, int height);

// Clears a freshly allocated workspace, once, before its first luma_stats. (Also after a
// call that failed, since then the workspace may be left half updated.)
void init_luma_stats_workspace(void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

// Counts src (device memory, any pitch and alignment) into *out (device memory). One kernel
// launch, enqueued on `stream`; nothing is allocated and the host never waits. `workspace`
// (device memory, 4-byte aligned as every cudaMalloc pointer is) must hold
// luma_stats_workspace_bytes(src.width, src.height) bytes and have been cleared by
// init_luma_stats_workspace (every luma_stats keeps it so). An empty image gives zero bins,
// mean 0 and otsu 0. Throws std::invalid_argument on a bad argument (an image of about 2^32
// pixels or more is one: its counts would not fit the 32-bit bins) and std::runtime_error
// (naming the kernel) when the launch fails.
void luma_stats(ConstImageU8 src, LumaStatsDevice* out, void* workspace, std::size_t workspace_bytes,
                cudaStream_t stream);

}  // namespace fp::cuda
