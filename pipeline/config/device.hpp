// The pipeline's `device` as the file or --device gives it (definition/device_names.hpp says
// which names are accepted).
#pragma once

#include <string>
#include <vector>

#include "pipeline/config/raw.hpp"

namespace fp {

// The device named by `value` (from the file or --device); "auto" with an issue added
// when it is not one of the accepted forms.
std::string check_device(const RawValue& value, std::vector<ConfigIssue>& issues);

}  // namespace fp
