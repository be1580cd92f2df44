// What a machine carries of a pipeline: what one stream costs (measured by `framepipe bench
// --pipeline`, or given from its recorded JSON), what the machine has (a budget per
// resource) and how many such streams fit. The one model behind bench's prediction and the
// stream manager's admission (a live stream that does not fit is refused, naming the
// resource): docs/sizing.md says it for users.
#pragma once

#include <cstddef>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace fp {

// What runs out. The names are the API's and the metrics' ("cpu_encode": the cores, which
// a video output's x264 takes most of; "gpu": the GPU's time).
enum class CapacityResource { Streams, CpuEncode, Gpu, Memory, GpuMemory };
const char* capacity_resource_name(CapacityResource resource);
inline constexpr CapacityResource kCapacityResources[] = {CapacityResource::Streams, CapacityResource::CpuEncode,
                                                         CapacityResource::Gpu, CapacityResource::Memory,
                                                         CapacityResource::GpuMemory};

// What streams hold of each resource: the sum of their loads.
struct CapacityLoad {
  double streams = 0;
  double cpu_cores = 0;     // cores kept busy (CPU seconds a second)
  double gpus = 0;          // GPUs kept busy (kernel seconds a second)
  double host_bytes = 0;    // resident host memory
  double device_bytes = 0;  // device memory
  double of(CapacityResource resource) const;
  CapacityLoad& operator+=(const CapacityLoad& other);
  CapacityLoad& operator-=(const CapacityLoad& other);
};

// What the machine gives the streams; infinity where nothing is counted.
struct CapacityBudget {
  static constexpr double kUnlimited = std::numeric_limits<double>::infinity();
  double streams = kUnlimited;
  double cpu_cores = kUnlimited;
  double gpus = kUnlimited;
  double host_bytes = kUnlimited;
  double device_bytes = kUnlimited;
  double of(CapacityResource resource) const;
};

// The defaults of a machine: the cores this process may use (cgroup quota, affinity) less a
// margin for the system and the service itself; a second of the stages' GPU time a second
// on each GPU; 80% of the host memory and device memory available now (`gpu_free_bytes`:
// each GPU's free memory; empty on the CPU).
// A stream's GPU time is what its stages' events span (bench --pipeline). Among many streams
// the GPU runs more than that: kernels of different streams overlap where one leaves SMs
// idle (thinning and fusion use under half), so on an H200 44 camera streams held (0 drops,
// p99 11 ms) at 1.12 s of such time a second and 47 did not (2.5% dropped). One second a
// second leaves that much margin.
inline constexpr double kGpuBusyShare = 1.0;
double default_cpu_budget(double usable_cores);
CapacityBudget machine_budget(double cpu_cores, const std::vector<std::size_t>& gpu_free_bytes,
                              std::size_t host_available_bytes);

// The first resource that `used` plus `extra` would overdraw, in kCapacityResources' order;
// nullopt when it fits.
std::optional<CapacityResource> first_short(const CapacityBudget& budget, const CapacityLoad& used,
                                            const CapacityLoad& extra);

// How many streams of load `each` fit in `budget`, and the resource that runs out first.
struct StreamsThatFit {
  int streams = 0;
  CapacityResource limit = CapacityResource::Streams;
  std::vector<std::pair<CapacityResource, double>> by_resource;  // each resource's own count (infinite: not used)
};
StreamsThatFit streams_that_fit(const CapacityBudget& budget, const CapacityLoad& each);

// What one stream of a pipeline costs, per frame at its input's rate, as `framepipe bench
// --pipeline` measured it.
struct PipelineCost {
  double fps = 30;             // the input's frames a second
  double cpu_ms = 0;           // the process's CPU time a frame: every thread, x264's and FFmpeg's too
  double gpu_ms = 0;           // the kernels' GPU time a frame (0 on the CPU)
  double host_bytes = 0;       // resident memory the stream adds
  double device_bytes = 0;     // device memory the stream adds
  CapacityLoad load() const;   // of one stream
};

// A bench --pipeline JSON document's cost (its "cost" object); throws std::runtime_error
// naming `file` and the key that is missing or wrong.
PipelineCost pipeline_cost_from_json(const std::string& text, const std::string& file);

}  // namespace fp
