#include "pipeline/device.hpp"

#include <fmt/format.h>

#include <charconv>

#include "pipeline/config_error.hpp"

#ifdef FRAMEPIPE_WITH_CUDA
#include "cuda/device_query.hpp"
#endif

namespace fp {

namespace {

int parse_ordinal(const std::string& requested) {
  if (requested == "cuda") return 0;
  const std::string digits = requested.substr(5);  // after "cuda:"
  int ordinal = -1;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
  if (ec != std::errc{} || end != digits.data() + digits.size() || ordinal < 0 || digits.empty())
    throw UsageError(fmt::format("device '{}': expected cpu, cuda or cuda:N", requested));
  return ordinal;
}

}  // namespace

Device resolve_device(const std::string& requested) {
  if (requested == "auto" || requested == "cpu") return Device{DeviceKind::Cpu, 0};
  if (requested != "cuda" && requested.rfind("cuda:", 0) != 0)
    throw UsageError(fmt::format("device '{}': expected auto, cpu, cuda or cuda:N", requested));
  const int ordinal = parse_ordinal(requested);
#ifdef FRAMEPIPE_WITH_CUDA
  const int count = cuda::device_count();
  if (ordinal >= count)
    throw UsageError(fmt::format("device cuda:{}: no such CUDA device ({} found; {})", ordinal, count,
                                 cuda::runtime_summary()));
  const auto description = cuda::describe_device(ordinal);
  throw UsageError(fmt::format(
      "device cuda:{} ({}): the stages do not run on CUDA yet (the kernels arrive with the CUDA issue); "
      "use --device cpu",
      ordinal, description.name));
#else
  throw UsageError(fmt::format(
      "device cuda:{}: this framepipe was built without CUDA (configure with -DFRAMEPIPE_CUDA=ON)", ordinal));
#endif
}

std::vector<std::string> describe_devices() {
  std::vector<std::string> lines{"cpu"};
#ifdef FRAMEPIPE_WITH_CUDA
  const int count = cuda::device_count();
  for (int i = 0; i < count; ++i) {
    const auto d = cuda::describe_device(i);
    lines.push_back(fmt::format("cuda:{}  {} (sm_{}{}, {} SMs, {:.0f} GiB)", i, d.name, d.compute_major,
                                d.compute_minor, d.multiprocessors, static_cast<double>(d.memory_bytes) / (1 << 30)));
  }
  if (count == 0) lines.push_back("no CUDA device (" + cuda::runtime_summary() + ")");
#else
  lines.push_back("CUDA backend not built");
#endif
  return lines;
}

}  // namespace fp
