// The names a pipeline's `device` may take: auto, cpu, cuda, cuda:N, a list cuda:N,M,... or
// cuda:all (the lists spread the streams of a run on several inputs over those GPUs). One
// rule, read by the config loader (config/device) and by device resolution (engine/device).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace fp {

bool is_valid_device(const std::string& device);
// The ordinals of cuda:N or cuda:N,M,... in the order given; nullopt for any other text
// (cuda:all included) and for a list that names a GPU twice.
std::optional<std::vector<int>> cuda_ordinals(const std::string& device);

}  // namespace fp
