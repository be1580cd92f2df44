#include "pipeline/stream_list/list_sync.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <set>

#include "media/stream_uri.hpp"
#include "pipeline/stream_list/list.hpp"

namespace fp {

namespace {

// A refusal of a listed stream: kept (with why) until a retry or a new list puts it in force.
void note_rejected(const std::string& name, const std::string& error, std::map<std::string, std::string>& rejected) {
  const std::string why = mask_uris_in_text(error);
  const auto [it, added] = rejected.insert_or_assign(name, why);
  if (added) spdlog::error("stream list: stream {} not started: {}", name, why);
}

}  // namespace

StreamListSync::StreamListSync(StreamManager& manager, StreamListSyncOptions options)
    : manager_(manager), options_(std::move(options)) {
  status_.path = options_.file;
  status_.shard = options_.shard;
  content_ = read_stream_list_text(options_.file);
  const auto listed = parse_stream_list(content_, options_.file.string(), options_.default_pipeline);
  apply(listed);
  thread_ = std::thread([this] { poll_loop(); });
}

StreamListSync::~StreamListSync() { stop(); }

void StreamListSync::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void StreamListSync::reload() {
  {
    std::lock_guard lock(mutex_);
    reload_ = true;
  }
  wake_.notify_all();
}

StreamListStatus StreamListSync::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

void StreamListSync::poll_loop() {
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      const auto woken = [this] { return stopping_ || reload_; };
      if (options_.poll.count() > 0) wake_.wait_for(lock, options_.poll, woken);
      else wake_.wait(lock, woken);
      if (stopping_) return;
      reload_ = false;
    }
    if (manager_.draining()) continue;
    try {
      poll_once();
    } catch (const std::exception& e) {  // never let the poller die: the log says why
      spdlog::error("stream list {}: {}", options_.file.string(), mask_uris_in_text(e.what()));
    }
  }
}

// Once per distinct error: an unreadable file is looked at every poll, a bad content only
// when it changed (content_), and neither is counted twice in a row.
void StreamListSync::refuse(const std::string& error) {
  std::lock_guard lock(mutex_);
  if (status_.error == error) return;
  spdlog::error("{}; the streams of the last list read keep running", error);
  ++status_.reads_failed;
  status_.error = error;
}

void StreamListSync::poll_once() {
  std::string text;
  try {
    text = read_stream_list_text(options_.file);
  } catch (const StreamListError& e) {
    refuse(e.what());
    content_.clear();  // read again whole once it is back, even if unchanged
    return;
  }
  if (text == content_) {
    retry_rejected();
    return;
  }
  content_ = text;
  std::vector<StreamSpec> listed;
  try {
    listed = parse_stream_list(text, options_.file.string(), options_.default_pipeline);
  } catch (const StreamListEmpty& e) {
    // Most likely a file being rewritten (cut short); were it meant, it would say `streams: []`.
    std::size_t kept = 0;
    {
      std::lock_guard lock(mutex_);
      kept = status_.listed;
    }
    refuse(fmt::format("{}: the last good list ({} stream{}) is kept; write `streams: []` to remove them all", e.reason(),
                       kept, kept == 1 ? "" : "s"));
    return;
  } catch (const StreamListError& e) {
    refuse(e.what());
    return;
  }
  apply(listed);
}

void StreamListSync::apply(const std::vector<StreamSpec>& listed) {
  std::vector<StreamSpec> mine;
  for (const auto& spec : listed)
    if (options_.shard.owns(spec.name)) mine.push_back(spec);
  std::map<std::string, StreamSpec> current;
  for (auto& spec : manager_.specs()) current.emplace(spec.name, std::move(spec));
  std::set<std::string> wanted;
  for (const auto& spec : mine) wanted.insert(spec.name);

  // One batch, one state write, however long the list. Removals first: their places go to
  // the streams put after them; puts in list order: when the cap is reached, the ones
  // listed last are those that wait.
  std::vector<StreamChange> changes;
  for (const auto& [name, spec] : current)
    if (spec.source == StreamSource::List && !wanted.contains(name)) {
      StreamChange removal{.spec = {}, .remove = true};
      removal.spec.name = name;
      removal.spec.source = StreamSource::List;
      changes.push_back(std::move(removal));
    }
  std::map<std::string, std::string> rejected;
  {
    std::lock_guard lock(mutex_);
    rejected = status_.rejected;
  }
  std::erase_if(rejected, [&](const auto& entry) { return !wanted.contains(entry.first); });
  for (const auto& spec : mine) {
    const auto found = current.find(spec.name);
    if (found != current.end() && found->second == spec) {
      rejected.erase(spec.name);
      continue;
    }
    changes.push_back({.spec = spec, .remove = false});
  }
  const std::vector<StreamChangeResult> results = manager_.apply(changes);
  int removed = 0, added = 0, changed = 0;
  using Outcome = StreamChangeResult::Outcome;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const std::string& name = changes[i].spec.name;
    switch (results[i].outcome) {
      case Outcome::Removed: ++removed; break;
      case Outcome::Created: ++added; rejected.erase(name); break;
      case Outcome::Replaced: ++changed; rejected.erase(name); break;
      case Outcome::Unchanged: rejected.erase(name); break;
      case Outcome::Unknown: break;
      case Outcome::Refused:
        // A removal refused: the API made that name meanwhile, it is not the list's any more.
        if (!changes[i].remove) note_rejected(name, results[i].error, rejected);
        break;
    }
  }
  spdlog::info("stream list {}: {} listed, {} for shard {}: {} added, {} changed, {} removed, {} not started",
               options_.file.string(), listed.size(), mine.size(), options_.shard.to_string(), added, changed, removed,
               rejected.size());
  std::lock_guard lock(mutex_);
  in_force_ = std::move(mine);
  status_.listed = listed.size();
  status_.assigned = in_force_.size();
  status_.rejected = std::move(rejected);
  status_.error.clear();
  status_.read_at = std::chrono::system_clock::now();
  ++status_.reads_ok;
}

void StreamListSync::retry_rejected() {
  std::map<std::string, std::string> rejected;
  std::vector<StreamSpec> retry;
  {
    std::lock_guard lock(mutex_);
    if (status_.rejected.empty()) return;
    rejected = status_.rejected;
    for (const auto& spec : in_force_)
      if (rejected.contains(spec.name)) retry.push_back(spec);
  }
  for (const auto& spec : retry) {
    try {
      manager_.put(spec);
      rejected.erase(spec.name);
      spdlog::info("stream list: stream {} started on a retry", spec.name);
    } catch (const StreamRejected& e) {
      note_rejected(spec.name, e.what(), rejected);
      // No place (or draining): the others would be refused too, each after being planned.
      if (e.status() == 503) break;
    }
  }
  std::lock_guard lock(mutex_);
  status_.rejected = std::move(rejected);
}

}  // namespace fp
