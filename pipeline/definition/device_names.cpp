#include "pipeline/definition/device_names.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace fp {

std::optional<std::vector<int>> cuda_ordinals(const std::string& device) {
  const std::string prefix = "cuda:";
  if (device.rfind(prefix, 0) != 0) return std::nullopt;
  std::vector<int> ordinals;
  std::set<int> seen;
  std::size_t start = prefix.size();
  for (;;) {
    const auto comma = device.find(',', start);
    const std::string ordinal = device.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    // Nine digits at most, so that the ordinal always fits an int.
    if (ordinal.empty() || ordinal.size() > 9 ||
        !std::all_of(ordinal.begin(), ordinal.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
      return std::nullopt;
    const int value = std::stoi(ordinal);
    if (!seen.insert(value).second) return std::nullopt;  // a GPU named twice
    ordinals.push_back(value);
    if (comma == std::string::npos) return ordinals;
    start = comma + 1;
  }
}

bool is_valid_device(const std::string& device) {
  if (device == "auto" || device == "cpu" || device == "cuda" || device == "cuda:all") return true;
  return cuda_ordinals(device).has_value();
}

}  // namespace fp
