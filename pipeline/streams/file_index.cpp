#include "pipeline/streams/file_index.hpp"

#include <cctype>
#include <filesystem>
#include <set>

#include "pipeline/definition/file_identity.hpp"

namespace fp {

namespace {

namespace fs = std::filesystem;

struct Keys {
  std::vector<std::string> own;      // what identifies this file
  std::vector<std::string> wanted;   // what a file it clashes with would be indexed under
};

std::string folder_and_stem(const fs::path& folder, const std::string& stem) {
  return folder.string() + '\0' + stem;
}

// The keys of one file: its path, its inode; as a playlist, the key its segments are looked
// up by; as a .ts file, the key of every playlist it could be a segment of (cam12.ts: cam1, cam).
Keys keys_of(const FileIdentity& id) {
  Keys keys;
  keys.own.push_back("p:" + id.canonical);
  if (id.inode) keys.own.push_back("i:" + std::to_string(id.inode->first) + ":" + std::to_string(id.inode->second));
  keys.wanted = keys.own;
  const fs::path path = id.canonical;
  const std::string stem = path.stem().string();
  if (id.hls) {
    keys.own.push_back("h:" + folder_and_stem(path.parent_path(), stem));
    keys.wanted.push_back("s:" + folder_and_stem(path.parent_path(), stem));
  }
  if (path.extension() == ".ts")
    for (std::size_t end = stem.size(); end > 0 && std::isdigit(static_cast<unsigned char>(stem[end - 1])); --end) {
      keys.own.push_back("s:" + folder_and_stem(path.parent_path(), stem.substr(0, end - 1)));
      keys.wanted.push_back("h:" + folder_and_stem(path.parent_path(), stem.substr(0, end - 1)));
    }
  return keys;
}

// `other`'s files, then the new ones: as check_stream_clashes always put them.
std::vector<FileUse> joined(const std::vector<FileUse>& other, const std::vector<FileUse>& files) {
  std::vector<FileUse> uses = other;
  uses.insert(uses.end(), files.begin(), files.end());
  return uses;
}

}  // namespace

void StreamFileIndex::add(RunId run, const std::string& stream, const std::vector<FileUse>& files) {
  remove(run);
  Indexed indexed{.stream = stream, .files = files, .keys = {}};
  for (const auto& use : files) {
    if (use.written) ++written_paths_[use.path];
    const std::string path = file_path_of(use);
    if (path.empty()) continue;
    const FileIdentity id = identity_of(path);
    if (id.character_device) continue;
    for (auto& key : keys_of(id).own) {
      by_key_.emplace(key, Entry{run, use.written});
      indexed.keys.push_back(std::move(key));
    }
  }
  runs_.emplace(run, std::move(indexed));
}

void StreamFileIndex::remove(RunId run) {
  const auto found = runs_.find(run);
  if (found == runs_.end()) return;
  for (const auto& key : found->second.keys) {
    auto [first, last] = by_key_.equal_range(key);
    for (auto it = first; it != last; ++it)
      if (it->second.run == run) {
        by_key_.erase(it);
        break;
      }
  }
  for (const auto& use : found->second.files)
    if (use.written)
      if (const auto count = written_paths_.find(use.path); count != written_paths_.end() && --count->second == 0)
        written_paths_.erase(count);
  runs_.erase(found);
}

std::string StreamFileIndex::clashes(const std::string& stream, const std::vector<FileUse>& files) const {
  std::set<RunId> candidates;  // in the order runs were added: the oldest clash is named
  bool every_run = false;
  for (const auto& use : files) {
    const std::string path = file_path_of(use);
    if (path.empty()) continue;
    const FileIdentity id = identity_of(path);
    if (id.character_device) continue;
    every_run = every_run || id.links > 1;
    for (const auto& key : keys_of(id).wanted) {
      auto [first, last] = by_key_.equal_range(key);
      for (auto it = first; it != last; ++it)
        if (use.written || it->second.written) candidates.insert(it->second.run);  // two readers never clash
    }
  }
  if (every_run)
    for (const auto& [run, indexed] : runs_) candidates.insert(run);
  for (const RunId run : candidates) {
    const Indexed& other = runs_.at(run);
    if (other.stream == stream) continue;  // runs of one name follow each other
    if (std::string message = clash_message(joined(other.files, files)); !message.empty()) return message;
  }
  return "";
}

bool StreamFileIndex::written(const std::string& path) const { return written_paths_.contains(path); }

}  // namespace fp
