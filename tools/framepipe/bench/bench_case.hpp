// One kernel benchmark: what it runs, at which size and parameters, and how many bytes it
// must move at the least (for GB/s; 0 where a byte count means nothing).
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tools/framepipe/bench/kernel_bounds.hpp"

namespace fp::bench {

struct BenchCase {
  std::string stage;       // e.g. "nlmeans"
  int width = 0;
  int height = 0;
  std::string parameters;  // e.g. "patch=7 search=21 h=10"
  double min_bytes = 0;    // each input read once and each output written once
  WorkModel work;          // its instructions and SFU ops, for `--bounds estimate` (kernel_bounds.hpp)
  std::function<void(cudaStream_t)> run;  // enqueues one run on the stream
  std::shared_ptr<void> resources;        // device buffers the run uses, freed with the case
};

struct BenchResult {
  BenchCase bench;
  int runs = 0;
  double median_ms = 0;
  double min_ms = 0;
  double mpixel_per_s() const { return median_ms > 0 ? bench.width * double(bench.height) / (median_ms * 1e3) : 0; }
  double gbyte_per_s() const { return median_ms > 0 && bench.min_bytes > 0 ? bench.min_bytes / (median_ms * 1e6) : 0; }
};

// Every kernel at one size; `stages` (empty: all) filters by stage name. `thinning_tilings`:
// thinning once for each tiling the kernel has (the first its own pick), each checked
// against the CPU's result before it is timed.
std::vector<BenchCase> make_bench_cases(int width, int height, const std::vector<std::string>& stages,
                                        bool thinning_tilings = false);

// The stage names make_bench_cases knows, for checking --stage before anything runs.
const std::vector<std::string>& bench_stage_names();

// The kernel `framepipe bench` launches before each case's kernels when Nsight Compute
// profiles them (ncu_csv.hpp: split_cases), and that no case launches itself.
inline constexpr const char* kCaseMarkerKernel = "spin_kernel";

// Peak DRAM bandwidth, warp-instruction issue and SFU rates of a device, from its attributes.
DevicePeaks device_peaks(int ordinal);

// Warms up, then times `runs` runs one by one with CUDA events: median and minimum.
BenchResult time_case(const BenchCase& bench, int warmup_runs, int runs);

}  // namespace fp::bench
