// A stream of `framepipe serve` never truncates a file it finds: an output whose path is
// taken — a regular file (or a link) is there, or another run still in flight writes it — is
// written beside it instead, with the first free suffix: cam1.mkv -> cam1.1.mkv, cam1.2.mkv...
// A replaced stream, a stream restored after a restart and a stream added again after a
// DELETE all keep what their earlier runs wrote.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

#include "pipeline/streams/template.hpp"

namespace fp {

// `path` with suffix `n` before its extension: "/o/cam1.mkv", 2 -> "/o/cam1.2.mkv".
std::string suffixed_output(const std::string& path, int n);

// Moves each local file output of `plan` whose path is taken (`in_use`, or a regular file or
// a link on disk there, a dangling one included) to its first free suffix, in the definition, the file
// uses and the outputs shown alike. The plan's own outputs count as taken for each other.
// One lstat per output tried: the cost of a put does not grow with the number of streams.
void move_outputs_beside_existing(StreamPlan& plan, const std::function<bool(const std::string&)>& in_use);

}  // namespace fp
