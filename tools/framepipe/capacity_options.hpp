// The command line's side of admission by cost (pipeline/capacity/capacity.hpp), shared by
// `run` and `serve`: a --cost file read, and the machine's budget with --cpu-budget.
#pragma once

#include <string>
#include <vector>

#include "pipeline/capacity/capacity.hpp"
#include "stages/stage.hpp"

namespace fp::cli {

// A `framepipe bench --pipeline --json` result; a UsageError "OPTION: FILE: why" otherwise.
PipelineCost read_cost_file(const std::string& option, const std::string& file);

// --cpu-budget (0: the cores this process may use, less a margin), 80% of the host memory
// available now, and of the GPUs' (of `devices`) free memory, and their time.
CapacityBudget machine_budget_for(double cpu_budget, const std::vector<Device>& devices);

}  // namespace fp::cli
