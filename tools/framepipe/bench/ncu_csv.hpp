// Reading Nsight Compute's CSV (`ncu --csv`): its "details" page (one row per kernel and
// metric: "ID","Kernel Name",...,"Metric Name","Metric Unit","Metric Value") and its "raw"
// page (one row per kernel, a column per metric, a row of units under the header). ncu
// writes its own lines ("==PROF== ...", "==WARNING== ...") and the profiled program's
// output around the CSV; those are skipped. Values keep ncu's thousands separators
// ("1,261,854") and may be "n/a".
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "tools/framepipe/bench/kernel_bounds.hpp"

namespace fp::bench {

// RFC 4180 records: fields split on commas, quoted fields may hold commas, doubled quotes
// and line breaks. Lines that begin with "==" outside a quoted field (ncu's messages) are
// dropped; so are empty lines.
std::vector<std::vector<std::string>> parse_csv(std::string_view text);

struct NcuKernel {
  std::string id;    // ncu's launch ID
  std::string name;  // as ncu printed it (demangled)
  std::map<std::string, double> metrics;  // by metric name, in the metric's unit; "n/a" left out
  std::map<std::string, std::string> units;
};

// The kernels in launch order. Lines before the header (the program's output) are ignored;
// throws std::runtime_error when there is no ncu header at all.
std::vector<NcuKernel> parse_ncu_csv(std::string_view text);

// The metrics `framepipe bench --bounds ncu` asks for (ncu --metrics), in this order.
const std::vector<std::string>& ncu_bound_metrics();

// "void (anonymous namespace)::nlmeans_kernel<3>((anonymous namespace)::Args)" -> "nlmeans_kernel<3>".
std::string short_kernel_name(std::string_view demangled);

// One kernel's figures from the metrics above.
KernelBounds bounds_from_ncu(const NcuKernel& kernel);

// The profiled program launches `marker` before each case's kernels; the kernels after
// each marker, up to the next, are that case's. Kernels before the first marker are dropped.
std::vector<std::vector<KernelBounds>> split_cases(const std::vector<NcuKernel>& kernels, std::string_view marker);

}  // namespace fp::bench
