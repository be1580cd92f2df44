// The desired state of `framepipe serve` on disk: which streams should exist, so that a
// process killed with -9 and started again brings back the same streams.
//
//   {"version": 1,
//    "streams": [{"name": "cam1", "pipeline": "default", "uri": "rtsp://u:p@cam/1",
//                 "set": {"denoise.h": "8"}, "decode": {"reconnect": "forever"},
//                 "source": "api", "finished": false}]}
//
// `source` says who made it (the API or the stream list; absent: the API).
// `finished` is true for a stream whose input (a file, a bounded testsrc) ended well: its
// outputs are complete, and a restart lists it as finished instead of running it again and
// overwriting them. A failed stream is not marked: a restart tries it again. The file holds
// credentials (input URIs with passwords): it is written whole, mode 0600, to a temporary file
// of a new name beside it (never opened through a link: private_file.hpp), fsync'ed, then
// renamed over the old one (and the folder fsync'ed), so that a crash at any moment leaves the
// old state or the new one, never half of one.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "pipeline/stream_spec/spec.hpp"

namespace fp {

struct SavedStream {
  StreamSpec spec;
  bool finished = false;
};

// An absent file is an empty state. Throws UsageError (a configuration error: exit 2) naming
// the file for one that cannot be read, is not a regular file (a FIFO is refused, not waited
// on), is a symbolic link (a rename would replace the link, not its target) or is not such a
// document (the JSON parser's message and position, never a quote of the file's text, which
// holds credentials; or the key whose value has the wrong type: "streams[2].set: must be an
// object"). A name listed twice is returned twice: what to do with it is the manager's
// (StreamManager keeps the first).
std::vector<SavedStream> read_stream_state(const std::filesystem::path& file);
// Throws std::runtime_error naming the file when it cannot be written.
void write_stream_state(const std::filesystem::path& file, const std::vector<SavedStream>& streams);

}  // namespace fp
