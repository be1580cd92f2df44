// The files that the streams of a service read and write, indexed by what makes two paths
// one file (file_identity.hpp), so that a new stream is checked against every other in a
// number of look-ups that grows with its own files, not with the number of streams: before
// it, each put stat'ed every file of every stream, and 16,000 streams took 137 s to restore.
//
// Each run's files are identified once, when it is added. A look-up identifies the new
// files now and finds the runs that may clash with them (the same canonical path, the same
// inode, an HLS playlist and its segments; inputs shared by readers never clash); the one
// found is then checked pairwise by check_file_clashes, so a refusal reads as it always did.
// A file with more than one hard link is checked against every run (its other names cannot
// be looked up): rare, and exact.
#pragma once
#if !defined(FRAMEPIPE_ROOM_STREAMS)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/streams/file_index.hpp is private to pipeline/streams/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "pipeline/definition/file_clashes.hpp"

namespace fp {

class StreamFileIndex {
 public:
  using RunId = std::uint64_t;

  // The files of run `run` of stream `stream`, as it will use them. A run added twice replaces itself.
  void add(RunId run, const std::string& stream, const std::vector<FileUse>& files);
  // Forgets a run (its files are no longer in use); unknown runs are ignored.
  void remove(RunId run);

  // The first clash of `files` (of stream `stream`) with a run of another stream, as
  // check_file_clashes words it (naming both files); empty when there is none.
  std::string clashes(const std::string& stream, const std::vector<FileUse>& files) const;
  // Whether an indexed run writes exactly this path.
  bool written(const std::string& path) const;
  std::size_t runs() const { return runs_.size(); }

 private:
  struct Indexed {
    std::string stream;
    std::vector<FileUse> files;
    std::vector<std::string> keys;  // its entries in by_key_
  };
  struct Entry {
    RunId run;
    bool written;
  };
  std::map<RunId, Indexed> runs_;
  // "p:" canonical path, "i:" device and inode, "h:" an HLS playlist's folder and stem,
  // "s:" the folder and stem a .ts file would have as that playlist's segment.
  std::unordered_multimap<std::string, Entry> by_key_;
  std::unordered_map<std::string, int> written_paths_;  // as given (exact), with their count
};

}  // namespace fp
