// The pipeline's `device`: auto, cpu, cuda or cuda:N.
#pragma once

#include <string>
#include <vector>

#include "pipeline/config_raw.hpp"

namespace fp {

bool is_valid_device(const std::string& device);

// The device named by `value` (from the file or --device); "auto" with an issue added
// when it is not one of the accepted forms.
std::string check_device(const RawValue& value, std::vector<ConfigIssue>& issues);

}  // namespace fp
