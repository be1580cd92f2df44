// The pipeline's `device` as the file or --device gives it (definition/device_names.hpp says
// which names are accepted).
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/device.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <string>
#include <vector>

#include "pipeline/config/raw.hpp"

namespace fp {

// The device named by `value` (from the file or --device); "auto" with an issue added
// when it is not one of the accepted forms.
std::string check_device(const RawValue& value, std::vector<ConfigIssue>& issues);

}  // namespace fp
