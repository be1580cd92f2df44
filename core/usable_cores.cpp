#include "core/usable_cores.hpp"

#include <sched.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <thread>

namespace fp {

std::optional<double> cpu_quota_cores(const std::string& cpu_max) {
  std::istringstream in(cpu_max);
  std::string quota;
  double period = 0;
  if (!(in >> quota >> period) || quota == "max" || period <= 0) return std::nullopt;
  try {
    std::size_t used = 0;
    const double value = std::stod(quota, &used);
    if (used != quota.size() || value <= 0) return std::nullopt;
    return value / period;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

namespace {

int affinity_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::thread::hardware_concurrency());
}

std::optional<double> cgroup_quota() {
  std::ifstream file("/sys/fs/cgroup/cpu.max");
  std::string text;
  if (!std::getline(file, text)) return std::nullopt;
  return cpu_quota_cores(text);
}

}  // namespace

double usable_cores() {
  double cores = std::max(1, affinity_cpus());
  if (const auto quota = cgroup_quota()) cores = std::min(cores, *quota);
  return std::max(1.0, cores);
}

}  // namespace fp
