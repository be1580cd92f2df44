// The stream list of `framepipe serve --stream-list FILE`: the streams a fleet should run,
// kept by its operator (in Kubernetes, a ConfigMap mounted into every pod):
//
//   streams:
//     - name: cam-001                  # [A-Za-z0-9._-]{1,64}, unique
//       uri: rtsp://10.0.0.11/stream   # the input
//       pipeline: camera               # a template's name; default: serve's default pipeline
//       set: {denoise.h: 12}           # as the API's "set": STAGE.PARAM -> value
//       decode: {reconnect: forever}   # as the API's "decode": PARAM -> value
//
// Every key means what it means in the body of PUT /v1/streams/{name}. Whether a stream's
// template, overrides and paths are valid is the manager's to say (as for the API): this
// reads the file's shape only.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "pipeline/stream_spec/spec.hpp"

namespace fp {

// What is wrong with a list: "FILE:LINE: streams[3].uri: missing" (credentials masked).
class StreamListError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A list that names no streams without saying so: an empty file, one of blank lines or
// comments only, or `streams:` with nothing after it. A file cut short while being written
// (`cp` and a shell's `>` truncate it first) reads like this, so it is never taken for "no
// streams": only `streams: []` says that. what(): "FILE: empty file (...): write `streams:
// []` for a list of no streams"; reason(): the part before the advice, for a reader that
// gives its own (StreamListSync keeps the last good list).
class StreamListEmpty : public StreamListError {
 public:
  explicit StreamListEmpty(const std::string& reason)
      : StreamListError(reason + ": write `streams: []` for a list of no streams"), reason_(reason) {}
  const std::string& reason() const { return reason_; }

 private:
  std::string reason_;
};

// The streams of a list's text (`file` names it in errors), in the order listed, each with
// source List. `streams: []` is an empty list; a text that lists nothing without it throws
// StreamListEmpty. Throws StreamListError.
std::vector<StreamSpec> parse_stream_list(const std::string& text, const std::string& file,
                                          const std::string& default_pipeline);
// The most a stream list may hold: some 100,000 streams of long URIs.
constexpr std::size_t kMaxStreamListBytes = 32u << 20;
// The file's whole text, read without blocking (core/small_file.hpp: a FIFO put in its place
// would hold serve's start and its poll thread). Throws StreamListError "FILE: cannot read
// the stream list: WHY" (no such file, not a regular file, larger than the bound).
std::string read_stream_list_text(const std::filesystem::path& file);
// parse_stream_list of read_stream_list_text. Throws StreamListError.
std::vector<StreamSpec> read_stream_list(const std::filesystem::path& file, const std::string& default_pipeline);

}  // namespace fp
