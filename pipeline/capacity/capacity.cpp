#include "pipeline/capacity/capacity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace fp {

namespace {

// The share of the available memory the streams may take (the rest is the machine's), as
// the --jobs estimate leaves it (jobs.cpp).
constexpr double kMemoryShare = 0.8;

}  // namespace

const char* capacity_resource_name(CapacityResource resource) {
  switch (resource) {
    case CapacityResource::Streams: return "streams";
    case CapacityResource::CpuEncode: return "cpu_encode";
    case CapacityResource::Gpu: return "gpu";
    case CapacityResource::Memory: return "memory";
    case CapacityResource::GpuMemory: return "gpu_memory";
  }
  return "streams";
}

namespace {

// A load and a budget name their resources alike.
template <class Amounts>
double amount_of(const Amounts& amounts, CapacityResource resource) {
  switch (resource) {
    case CapacityResource::Streams: return amounts.streams;
    case CapacityResource::CpuEncode: return amounts.cpu_cores;
    case CapacityResource::Gpu: return amounts.gpus;
    case CapacityResource::Memory: return amounts.host_bytes;
    case CapacityResource::GpuMemory: return amounts.device_bytes;
  }
  return 0;
}

}  // namespace

double CapacityLoad::of(CapacityResource resource) const { return amount_of(*this, resource); }

CapacityLoad& CapacityLoad::operator+=(const CapacityLoad& other) {
  streams += other.streams;
  cpu_cores += other.cpu_cores;
  gpus += other.gpus;
  host_bytes += other.host_bytes;
  device_bytes += other.device_bytes;
  return *this;
}

CapacityLoad& CapacityLoad::operator-=(const CapacityLoad& other) {
  // Never below zero: a load given back twice (a bug) must not make room that is not there.
  streams = std::max(0.0, streams - other.streams);
  cpu_cores = std::max(0.0, cpu_cores - other.cpu_cores);
  gpus = std::max(0.0, gpus - other.gpus);
  host_bytes = std::max(0.0, host_bytes - other.host_bytes);
  device_bytes = std::max(0.0, device_bytes - other.device_bytes);
  return *this;
}

double CapacityBudget::of(CapacityResource resource) const { return amount_of(*this, resource); }

// A tenth of the cores, at least one, is left to the kernel, the service's own threads and
// whatever else the machine runs; a single core is given whole.
double default_cpu_budget(double usable_cores) {
  if (usable_cores <= 1) return std::max(usable_cores, 0.1);
  return std::max(1.0, usable_cores - std::max(1.0, usable_cores * 0.1));
}

CapacityBudget machine_budget(double cpu_cores, const std::vector<std::size_t>& gpu_free_bytes,
                              std::size_t host_available_bytes) {
  CapacityBudget budget;
  budget.cpu_cores = cpu_cores;
  budget.host_bytes = static_cast<double>(host_available_bytes) * kMemoryShare;
  if (!gpu_free_bytes.empty()) {
    budget.gpus = kGpuBusyShare * static_cast<double>(gpu_free_bytes.size());
    double free = 0;
    for (const std::size_t bytes : gpu_free_bytes) free += static_cast<double>(bytes);
    budget.device_bytes = free * kMemoryShare;
  }
  return budget;
}

std::optional<CapacityResource> first_short(const CapacityBudget& budget, const CapacityLoad& used,
                                            const CapacityLoad& extra) {
  for (const CapacityResource resource : kCapacityResources) {
    const double wanted = extra.of(resource);
    if (wanted <= 0) continue;  // what a stream does not use, it cannot overdraw
    if (used.of(resource) + wanted > budget.of(resource) * (1 + 1e-9)) return resource;
  }
  return std::nullopt;
}

StreamsThatFit streams_that_fit(const CapacityBudget& budget, const CapacityLoad& each) {
  StreamsThatFit fit;
  double fewest = CapacityBudget::kUnlimited;
  for (const CapacityResource resource : kCapacityResources) {
    const double wanted = each.of(resource);
    const double count = wanted > 0 ? std::floor(budget.of(resource) / wanted * (1 + 1e-9)) : CapacityBudget::kUnlimited;
    fit.by_resource.emplace_back(resource, count);
    if (count < fewest) {
      fewest = count;
      fit.limit = resource;
    }
  }
  fit.streams = std::isinf(fewest) ? std::numeric_limits<int>::max() : static_cast<int>(std::min(fewest, 1e9));
  return fit;
}

CapacityLoad PipelineCost::load() const {
  CapacityLoad load;
  load.streams = 1;
  load.cpu_cores = cpu_ms / 1000.0 * fps;
  load.gpus = gpu_ms / 1000.0 * fps;
  load.host_bytes = host_bytes;
  load.device_bytes = device_bytes;
  return load;
}

PipelineCost pipeline_cost_from_json(const std::string& text, const std::string& file) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: not a framepipe bench --pipeline result: {}", file, e.what()));
  }
  if (!doc.is_object() || !doc.contains("cost") || !doc["cost"].is_object())
    throw std::runtime_error(fmt::format("{}: not a framepipe bench --pipeline result (no \"cost\" object)", file));
  const auto& cost = doc["cost"];
  const auto number = [&](const char* key, double low, double high) {
    if (!cost.contains(key) || !cost[key].is_number())
      throw std::runtime_error(fmt::format("{}: cost.{}: a number is required", file, key));
    const double value = cost[key].get<double>();
    if (!std::isfinite(value) || value < low || value > high)
      throw std::runtime_error(fmt::format("{}: cost.{}: {} is outside {}..{}", file, key, value, low, high));
    return value;
  };
  PipelineCost result;
  result.fps = number("fps", 0.01, 1000);
  result.cpu_ms = number("cpu_ms", 0, 1e6);
  result.gpu_ms = number("gpu_ms", 0, 1e6);
  result.host_bytes = number("host_bytes", 0, 1e15);
  result.device_bytes = number("device_bytes", 0, 1e15);
  return result;
}

}  // namespace fp
