// The desired state of `framepipe serve` on disk: which streams should exist, so that a
// process killed with -9 and started again brings back the same streams.
//
//   {"version": 1,
//    "streams": [{"name": "cam1", "pipeline": "default", "uri": "rtsp://u:p@cam/1",
//                 "set": {"denoise.h": "8"}, "decode": {"reconnect": "forever"},
//                 "source": "api", "finished": false}],
//    "learned_costs": {"default": {"cores_per_mpps": 0.052, "template": "9f3c0a1e77d2b845"}}}
//
// `source` says who made it (the API or the stream list; absent: the API).
// `learned_costs` (absent in older files: none) is what serve learned a stream of each
// template costs (pipeline/streams/learned_costs.hpp), for the text of the template it was
// learned on (`template`, its hash): a restart admits on it instead of the guess.
// `finished` is true for a stream whose input (a file, a bounded testsrc) ended well: its
// outputs are complete, and a restart lists it as finished instead of running it again and
// overwriting them. A failed stream is not marked: a restart tries it again. The file holds
// credentials (input URIs with passwords): it is written whole, mode 0600, to a temporary file
// of a new name beside it (never opened through a link: private_file.hpp), fsync'ed, then
// renamed over the old one (and the folder fsync'ed), so that a crash at any moment leaves the
// old state or the new one, never half of one.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "pipeline/stream_spec/spec.hpp"

namespace fp {

struct SavedStream {
  StreamSpec spec;
  bool finished = false;
};

struct LearnedCost {
  double cores_per_mpps = 0;
  std::string template_digest;  // StreamPlan::template_digest of the streams it was learned from
};

struct SavedState {
  std::vector<SavedStream> streams;
  std::map<std::string, LearnedCost> learned_costs;  // by template name
};

// An absent file is an empty state. Throws UsageError (a configuration error: exit 2) naming
// the file for one that cannot be read, is not a regular file (a FIFO is refused, not waited
// on), is a symbolic link (a rename would replace the link, not its target) or is not such a
// document (the JSON parser's message and position, never a quote of the file's text, which
// holds credentials; or the key whose value has the wrong type: "streams[2].set: must be an
// object"; "learned_costs.default.cores_per_mpps: must be a number from 0 to 1000"). A name
// listed twice is returned twice: what to do with it is the manager's (StreamManager keeps
// the first).
SavedState read_stream_state(const std::filesystem::path& file);
// Throws std::runtime_error naming the file when it cannot be written.
void write_stream_state(const std::filesystem::path& file, const SavedState& state);

}  // namespace fp
