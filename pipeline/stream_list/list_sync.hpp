// Keeps a StreamManager's list streams equal to this shard's part of a stream list file
// (`framepipe serve --stream-list FILE --shard I/N`). The file is read at start and then
// every poll interval, or at once on reload() (serve's SIGHUP); a changed content is
// applied as a difference — streams no longer listed (or now another shard's) are removed,
// new and changed ones put, the others left running untouched — through the manager's
// put/remove, the API's own path. A Kubernetes
// ConfigMap mounted as a folder changes by an atomic swap of its `..data` link: reading the
// path whole each time sees the old content or the new one, never half of each.
//
// A list that cannot be read or parsed at start is an error (serve exits 2); later, the
// streams of the last good list keep running and the error is reported (status(), the log).
// So is a list that names no streams without saying `streams: []` (an empty file, comments
// only: StreamListEmpty), since a file cut short while being written reads so: at start
// there is no last good list to keep, and it is refused all the same.
// A listed stream the manager refuses (invalid template, a path outside the roots, a name
// the API holds) is reported and tried again at each poll; one beyond the cap waits in the
// manager (state waiting, "capacity") until a place frees. A listed live stream that fails
// is started again by the manager, as an API one is (StreamManagerOptions::restart): the
// list has nothing of its own to do for it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pipeline/stream_list/shard.hpp"
#include "pipeline/streams/manager.hpp"

namespace fp {

struct StreamListStatus {
  std::filesystem::path path;
  Shard shard;
  std::size_t listed = 0;    // streams in the list in force
  std::size_t assigned = 0;  // of them, this shard's
  std::map<std::string, std::string> rejected;  // this shard's streams the manager refused: why (masked)
  std::string error;          // why the file's newest content is not in force (masked); empty when it is
  std::chrono::system_clock::time_point read_at{};  // when the list in force was read
  std::int64_t reads_ok = 0;      // contents applied (the first read included)
  std::int64_t reads_failed = 0;  // contents refused
};

struct StreamListSyncOptions {
  std::filesystem::path file;
  Shard shard;
  std::string default_pipeline;  // for entries without `pipeline`
  std::chrono::milliseconds poll{2000};  // 0: no poll, read on reload() alone
};

class StreamListSync {
 public:
  // Reads and applies the list once (throws StreamListError for a bad file), then polls.
  StreamListSync(StreamManager& manager, StreamListSyncOptions options);
  ~StreamListSync();  // stop()
  StreamListSync(const StreamListSync&) = delete;
  StreamListSync& operator=(const StreamListSync&) = delete;

  // Stops polling (before a drain: the list must not put streams back). Idempotent.
  void stop();
  // Reads the file now instead of at the next poll (serve's SIGHUP), on the poll thread.
  void reload();
  StreamListStatus status() const;

 private:
  void poll_loop();
  void poll_once();
  void refuse(const std::string& error);  // the newest content is not in force: why
  // Puts/removes what differs between this shard's part of `listed` and the manager's list streams.
  void apply(const std::vector<StreamSpec>& listed);
  void retry_rejected();

  StreamManager& manager_;
  StreamListSyncOptions options_;
  std::string content_;                 // the text last read (applied or refused)
  std::vector<StreamSpec> in_force_;    // this shard's streams of the list in force, in list order

  mutable std::mutex mutex_;  // guards status_, stopping_ and reload_
  StreamListStatus status_;
  bool stopping_ = false;
  bool reload_ = false;  // reload(): poll now
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace fp
