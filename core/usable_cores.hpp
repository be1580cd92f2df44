// How many cores this process may keep busy: the CPUs its affinity allows (taskset, a
// container's cpuset), lowered to a cgroup v2 CPU quota (cpu.max, a Kubernetes CPU limit)
// where one is set. std::thread::hardware_concurrency() counts the machine's CPUs, which a
// pod limited to 4 of a 64-core node would take for 64.
#pragma once

#include <optional>
#include <string>

namespace fp {

// At least 1.
double usable_cores();

// The quota of a cgroup v2 cpu.max text ("QUOTA PERIOD", or "max PERIOD" for none), in
// cores; nullopt when it sets none or cannot be read. Exposed for its test.
std::optional<double> cpu_quota_cores(const std::string& cpu_max);

}  // namespace fp
