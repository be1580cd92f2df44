#include "tools/framepipe/capacity_options.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/small_file.hpp"
#include "core/usable_cores.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/capacity/jobs.hpp"
#include "stages/gpu_devices.hpp"

namespace fp::cli {

PipelineCost read_cost_file(const std::string& option, const std::string& file) {
  constexpr std::size_t kLargestCostFile = 1 << 20;
  try {
    return pipeline_cost_from_json(read_small_file(file, kLargestCostFile), file);
  } catch (const SmallFileError& e) {
    throw UsageError(fmt::format("{}: {}: {}", option, file, e.what()));
  } catch (const std::runtime_error& e) {
    throw UsageError(fmt::format("{}: {}", option, e.what()));
  }
}

CapacityBudget machine_budget_for(double cpu_budget, const std::vector<Device>& devices) {
  std::vector<std::size_t> gpu_free;
  for (const auto& device : devices)
    if (device.kind == DeviceKind::Cuda) gpu_free.push_back(gpu_free_memory_bytes(device.ordinal));
  const double cores = cpu_budget > 0 ? cpu_budget : default_cpu_budget(usable_cores());
  const HostMemory host = host_memory();
  CapacityBudget budget = machine_budget(cores, gpu_free, host.available);
  // Within a data limit an allocation past it fails: jobs.cpp's share of what it leaves.
  if (host.data_left > 0)
    budget.host_bytes = std::min(budget.host_bytes, static_cast<double>(host.data_left) * kUsableDataShare);
  return budget;
}

}  // namespace fp::cli
