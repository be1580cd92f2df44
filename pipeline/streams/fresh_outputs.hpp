// A stream of `framepipe serve` never truncates a file it finds: an output whose path is
// taken — a regular file (or a link) is there, or another run still in flight writes it — is
// written beside it instead, with the first free suffix: cam1.mkv -> cam1~1.mkv, cam1~2.mkv...
// ('~' is no character of a stream name, so a kept file never takes the name a stream
// called cam1.1 would write).
// A replaced stream, a stream restored after a restart and a stream added again after a
// DELETE all keep what their earlier runs wrote.
#pragma once
#if !defined(FRAMEPIPE_ROOM_STREAMS)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/streams/fresh_outputs.hpp is private to pipeline/streams/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <filesystem>
#include <functional>
#include <string>

#include "pipeline/streams/template.hpp"

namespace fp {

// The most suffixes tried for one output before the stream is refused (409).
inline constexpr int kMostOutputSuffixes = 10000;

// `path` with suffix `n` before its extension: "/o/cam1.mkv", 2 -> "/o/cam1~2.mkv".
std::string suffixed_output(const std::string& path, int n);

// Moves each local file output of `plan` whose path is taken (`in_use`, or a regular file or
// a link on disk there, a dangling one included) to its first free suffix, in the definition, the file
// uses and the outputs shown alike. The plan's own outputs count as taken for each other.
// One lstat per output tried: the cost of a put does not grow with the number of streams.
// Throws StreamRejected (409) when kMostOutputSuffixes are taken.
void move_outputs_beside_existing(StreamPlan& plan, const std::function<bool(const std::string&)>& in_use);

}  // namespace fp
