// What bounds a kernel: its throughput as a percentage of the device's peak on the SM
// (instruction issue), on memory (the busiest of DRAM, L1 and L2) and on the special-function
// unit (XU: exp2, rcp, rsqrt, ...). The largest of the three is "the bound": a kernel at 90%
// of one is close to its limit there, one at 20% of all three is bound by latency or launch
// overhead. Measured by Nsight Compute (ncu_csv.hpp) or estimated from a work model
// (estimate_bounds below). No CUDA here, so that the tests build everywhere.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fp::bench {

struct KernelBounds {
  std::string kernel;                // short name, e.g. "nlmeans_kernel<3>"
  std::optional<double> sm_pct;      // nullopt: not measured / not modelled
  std::optional<double> memory_pct;  // ncu's "Memory Throughput": max of DRAM, L1/TEX, L2
  std::optional<double> sfu_pct;     // XU pipe
  // ncu only: the memory parts, and the kernel's duration under ncu (base clocks, serialized).
  std::optional<double> dram_pct;
  std::optional<double> l1_pct;
  std::optional<double> l2_pct;
  std::optional<double> duration_us;
  std::string model;  // estimate only: what was counted
};

struct Bound {
  std::string name;  // "sm", "memory", "sfu"; "" when nothing is known
  double pct = 0;
};

// The largest of sm, memory and sfu (the first named on a tie).
Bound limiting(const KernelBounds& k);

// One entry of a case's "bounds" array.
nlohmann::ordered_json to_json(const KernelBounds& k);

// The keys a case's JSON gets: "bounds_source" ("ncu" or "estimate") and "bounds", one entry
// per kernel launched (an estimate: one for the whole run).
void add_bounds_json(nlohmann::ordered_json& case_json, const std::vector<KernelBounds>& kernels, bool estimate);

// The table's column: the bound of the case's longest kernel ("SM 76%"; estimates "~SM 35%";
// "+N" when the case launched N more kernels), or "-".
std::string bound_cell(const std::vector<KernelBounds>& kernels, bool estimate);

// Peak rates of a device, for the estimate.
struct DevicePeaks {
  double dram_bytes_per_s = 0;   // 2 (DDR) x memory clock x bus width / 8
  double warp_issue_per_s = 0;   // SMs x 4 schedulers x 1 warp instruction a cycle x SM clock
  double sfu_ops_per_s = 0;      // SMs x 16 XU results a cycle (sm_80/sm_90) x SM clock
};

// What a case's run must do at the least, counted from its kernels' code (bench_cases.cpp
// writes one next to each case, with the derivation). 0: not modelled.
struct WorkModel {
  std::string kernel;               // the launches it covers, e.g. "nlmeans_kernel"
  double warp_instructions = 0;     // warp instructions issued per run
  double sfu_ops = 0;               // thread-level XU operations per run
  std::string note;                 // how the figures were had
};

// The model over the measured median: each figure's time at the device's peak as a
// percentage of the median. Bytes are the case's min_bytes (0: not modelled).
KernelBounds estimate_bounds(const WorkModel& model, double min_bytes, const DevicePeaks& peaks, double median_ms);

}  // namespace fp::bench
