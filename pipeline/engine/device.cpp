#include "pipeline/engine/device.hpp"

#include <fmt/format.h>

#include <string>

#include "pipeline/definition/config_error.hpp"
#include "pipeline/definition/device_names.hpp"
#include "stages/gpu_devices.hpp"

namespace fp {

Device resolve_device(const std::string& requested) { return resolve_devices(requested).front(); }

std::vector<Device> resolve_devices(const std::string& requested) {
  // The syntax is the config loader's (one definition: is_valid_device); checked again here
  // because resolve_devices may be called without it.
  if (!is_valid_device(requested))
    throw UsageError(
        fmt::format("device '{}': expected auto, cpu, cuda, cuda:N, a list cuda:N,M or cuda:all", requested));
  if (requested == "cpu") return {Device{DeviceKind::Cpu, 0}};
  std::vector<int> ordinals = requested == "cuda" ? std::vector<int>{0}
                              : requested == "cuda:all" || requested == "auto" ? std::vector<int>{}
                                                                             : *cuda_ordinals(requested);
  if (!cuda_backend_built()) {
    if (requested == "auto") return {Device{DeviceKind::Cpu, 0}};
    throw UsageError(fmt::format(
        "device {}: this framepipe was built without CUDA (configure with -DFRAMEPIPE_CUDA=ON)", requested));
  }
  const int count = gpu_count();
  // auto: the first GPU when there is one, else the CPU.
  if (requested == "auto") return {count > 0 ? Device{DeviceKind::Cuda, 0} : Device{DeviceKind::Cpu, 0}};
  if (requested == "cuda:all") {
    if (count == 0)
      throw UsageError(fmt::format("device cuda:all: no CUDA device ({}); --device cpu runs every stage on the CPU",
                                   gpu_runtime_summary()));
    for (int i = 0; i < count; ++i) ordinals.push_back(i);
  }
  std::vector<Device> devices;
  for (const int ordinal : ordinals) {
    if (ordinal >= count)
      throw UsageError(fmt::format("device cuda:{}: no such CUDA device ({} found; {}){}", ordinal, count,
                                   gpu_runtime_summary(),
                                   count == 0 ? "; --device cpu runs every stage on the CPU" : ""));
    devices.push_back(Device{DeviceKind::Cuda, ordinal});
  }
  return devices;
}

std::vector<std::string> describe_devices() {
  std::vector<std::string> lines{"cpu"};
  if (!cuda_backend_built()) {
    lines.push_back("CUDA backend not built");
    return lines;
  }
  const int count = gpu_count();
  for (int i = 0; i < count; ++i) {
    const auto d = describe_gpu(i);
    lines.push_back(fmt::format("cuda:{}  {} (sm_{}{}, {} SMs, {:.0f} GiB)", i, d.name, d.compute_major,
                                d.compute_minor, d.multiprocessors, static_cast<double>(d.memory_bytes) / (1 << 30)));
  }
  if (count == 0) lines.push_back("no CUDA device (" + gpu_runtime_summary() + ")");
  return lines;
}

}  // namespace fp
