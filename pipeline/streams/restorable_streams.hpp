// Which entries of a state file a starting StreamManager restores. The file is the service's
// own, but it can say what the service would never have written: a name twice (edited by
// hand, two files merged), or streams of a stream list that this process does not have
// (started again without --stream-list). Such entries are left out, each with a line for the
// log saying which and why, and the rest is restored: a service must come up whatever one
// entry says.
#pragma once
#if !defined(FRAMEPIPE_ROOM_STREAMS)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/streams/restorable_streams.hpp is private to pipeline/streams/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <filesystem>
#include <string>
#include <vector>

#include "pipeline/stream_spec/state_file.hpp"

namespace fp {

struct RestorableStreams {
  std::vector<SavedStream> streams;  // to restore, in the file's order
  // One line per entry left out, naming the state file, the entry and the stream.
  std::vector<std::string> refused;  // a name already taken by an earlier entry (the first one wins)
  std::vector<std::string> dropped;  // a list stream without a stream list
  // The file holds entries that were left out: write it again without them.
  bool rewrite() const { return !refused.empty() || !dropped.empty(); }
};

// `has_stream_list`: this process keeps a stream list (serve --stream-list), which takes its
// list streams over; without one, nothing could remove or replace them (the API may not:
// 409), so they are dropped.
RestorableStreams restorable_streams(std::vector<SavedStream> saved, const std::filesystem::path& file,
                                     bool has_stream_list);

}  // namespace fp
