// What a stream may be called, one rule for every front end: `run -i NAME=URI`, `inputs:`
// names, an input list's lines, serve's PUT /v1/streams/NAME and a stream list's `name:`.
// A name goes into file names ({stream}), URLs and metric labels.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fp {

inline constexpr std::size_t kMaxStreamNameLength = 64;
// The rule as messages state it.
inline constexpr const char* kStreamNameRule = "1 to 64 letters, digits, '.', '_' or '-', not starting with '.'";

bool is_valid_stream_name(std::string_view name);

// The name an unnamed input gets after its file: the stem of a local file (cams/door.mp4 or
// file:///cams/door.mp4 -> door) when that is a valid stream name; "" for anything else (a
// network URI, a camera, testsrc, a stem such as "a+b" that cannot go into file names),
// which is then named by its index.
std::string file_stream_name(const std::string& uri);

// `path` with every `{stream}` replaced by `name`: how an output path becomes one stream's,
// in a run on several inputs and in serve's templates alike.
std::string with_stream_name(std::string path, const std::string& name);

}  // namespace fp
