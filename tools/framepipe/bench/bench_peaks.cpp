// The peak rates `--bounds estimate` divides by, from the device's own attributes (so that
// an H200 or another card gets its own figures, not the H100's).
#include <cuda_runtime.h>

#include "cuda/cuda_check.hpp"
#include "tools/framepipe/bench/bench_case.hpp"

namespace fp::bench {

namespace {
int attribute(cudaDeviceAttr which, int ordinal) {
  int value = 0;
  cuda::check(cudaDeviceGetAttribute(&value, which, ordinal), "cudaDeviceGetAttribute");
  return value;
}
}  // namespace

DevicePeaks device_peaks(int ordinal) {
  const double sms = attribute(cudaDevAttrMultiProcessorCount, ordinal);
  const double sm_hz = attribute(cudaDevAttrClockRate, ordinal) * 1e3;       // the boost clock (kHz)
  const double memory_hz = attribute(cudaDevAttrMemoryClockRate, ordinal) * 1e3;
  const double bus_bytes = attribute(cudaDevAttrGlobalMemoryBusWidth, ordinal) / 8.0;
  DevicePeaks peaks;
  // Double data rate: two transfers a memory clock (H100 SXM: 2 x 2.619 GHz x 640 B = 3.35 TB/s).
  peaks.dram_bytes_per_s = 2 * memory_hz * bus_bytes;
  // Four warp schedulers an SM, each issuing at most one warp instruction a cycle (sm_70 on).
  peaks.warp_issue_per_s = sms * 4 * sm_hz;
  // The XU (MUFU) gives 16 results a cycle an SM on sm_80 and sm_90 (CUDA C++ Programming
  // Guide, arithmetic instruction throughput: exp2, rcp, rsqrt, sin, cos, lg2).
  peaks.sfu_ops_per_s = sms * 16 * sm_hz;
  return peaks;
}

}  // namespace fp::bench
