// The pipeline's `device`: auto, cpu, cuda, cuda:N, a list cuda:N,M,... or cuda:all (the
// lists spread the streams of a run on several inputs over those GPUs).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pipeline/config_raw.hpp"

namespace fp {

bool is_valid_device(const std::string& device);

// The ordinals of cuda:N or cuda:N,M,... in the order given; nullopt for any other text
// (cuda:all included) and for a list that names a GPU twice.
std::optional<std::vector<int>> cuda_ordinals(const std::string& device);

// The device named by `value` (from the file or --device); "auto" with an issue added
// when it is not one of the accepted forms.
std::string check_device(const RawValue& value, std::vector<ConfigIssue>& issues);

}  // namespace fp
