// Turns the pipeline's `device` setting into the device that will run it.
#pragma once

#include <string>
#include <vector>

#include "stages/stage.hpp"

namespace fp {

// "auto" picks the first CUDA device when this build has the CUDA backend and the machine a
// GPU, else the CPU; "cpu" is the CPU; "cuda" / "cuda:N" need the CUDA backend and that
// device. Throws UsageError naming the device otherwise.
Device resolve_device(const std::string& requested);

// The same for a list: cuda:N,M,... gives those GPUs, cuda:all every GPU of the machine;
// any single device gives itself alone. The streams of a run on several inputs are spread
// over them in turn; a run on one input uses the first.
std::vector<Device> resolve_devices(const std::string& requested);

// One line per device this build could use, for `framepipe --version`.
std::vector<std::string> describe_devices();

}  // namespace fp
