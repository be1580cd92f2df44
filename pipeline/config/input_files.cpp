#include "pipeline/config/input_files.hpp"

#include "core/small_file.hpp"
#include "pipeline/config/streams.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>
#include <string_view>

namespace fp {

namespace {

namespace fs = std::filesystem;

// Bounds, so that a typo cannot make reading a pipeline slow: entries of a folder looked
// at, streams one pattern or list may make, and the size of a list file.
constexpr std::size_t kMaxEntriesScanned = 100000;
constexpr std::size_t kMaxInputs = 1024;
constexpr std::size_t kMaxListBytes = 1 << 20;

bool has_wildcard(const std::string& text) { return text.find_first_of("*?[") != std::string::npos; }

// A list's unnamed local files take their stems, unless that would give two streams one
// name: then, as a glob does, every one of them is named by its index instead (a stem that
// is fine alone but clashes in this list must not pick which of the two keeps it).
void name_unnamed_inputs(std::vector<NamedInput>& inputs) {
  std::set<std::string> taken;  // the names given, and the index names of unnamed URIs
  std::vector<std::string> stems(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].name.empty())
      taken.insert(inputs[i].name);
    else if ((stems[i] = file_stream_name(inputs[i].uri)).empty())
      taken.insert(std::to_string(i));
  }
  bool clash = false;
  std::set<std::string> seen;
  for (const auto& stem : stems)
    if (!stem.empty()) clash = clash || taken.count(stem) > 0 || !seen.insert(stem).second;
  for (std::size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].name.empty()) inputs[i].name = stems[i].empty() || clash ? std::to_string(i) : stems[i];
}

}  // namespace

std::vector<NamedInput> expand_input_glob(const std::string& pattern, const Origin& at,
                                          std::vector<ConfigIssue>& issues) {
  const fs::path path(pattern);
  const std::string folder_text = path.parent_path().string();
  const std::string name_pattern = path.filename().string();
  if (pattern.empty() || name_pattern.empty()) {
    issues.push_back(at.issue("must be a file pattern such as cams/*.mp4 (got '" + pattern + "')"));
    return {};
  }
  if (has_wildcard(folder_text)) {
    issues.push_back(at.issue("wildcards go in the file name only (got '" + pattern + "')"));
    return {};
  }
  const fs::path folder = folder_text.empty() ? fs::path(".") : fs::path(folder_text);
  std::error_code ec;
  fs::directory_iterator entries(folder, ec);
  if (ec) {
    issues.push_back(at.issue("cannot list " + folder.string() + ": " + ec.message()));
    return {};
  }
  std::vector<std::string> files;
  std::size_t scanned = 0;
  for (; entries != fs::directory_iterator(); entries.increment(ec)) {
    if (ec || ++scanned > kMaxEntriesScanned) break;
    const std::string name = entries->path().filename().string();
    if (name.front() == '.' && name_pattern.front() != '.') continue;  // as the shell does
    if (fnmatch(name_pattern.c_str(), name.c_str(), FNM_PERIOD) != 0) continue;
    if (!entries->is_regular_file(ec)) continue;
    files.push_back(folder_text.empty() ? name : (fs::path(folder_text) / name).string());
  }
  if (files.empty()) {
    issues.push_back(at.issue("no file matches '" + pattern + "'"));
    return {};
  }
  if (files.size() > kMaxInputs) {
    issues.push_back(at.issue("'" + pattern + "' matches " + std::to_string(files.size()) + " files; at most " +
                              std::to_string(kMaxInputs) + " inputs run in one process"));
    return {};
  }
  std::sort(files.begin(), files.end());
  std::vector<NamedInput> inputs;
  std::set<std::string> stems;
  bool clash = false;
  for (const auto& file : files) {
    const std::string stem = fs::path(file).stem().string();
    clash = clash || !stems.insert(stem).second;
    inputs.push_back({file, stem});
  }
  // Two folders' worth of names cannot clash here (one folder), but a.mp4 and a.mkv can.
  if (clash)
    for (std::size_t i = 0; i < inputs.size(); ++i) inputs[i].name = std::to_string(i);
  return inputs;
}

std::vector<NamedInput> read_input_list_file(const std::string& path, const Origin& at,
                                             std::vector<ConfigIssue>& issues) {
  // Non-blocking, regular files only, at most the bound: a FIFO or a special file must not
  // hold the reading of a pipeline forever.
  std::string text;
  try {
    text = read_small_file(path, kMaxListBytes);
  } catch (const SmallFileError& e) {
    issues.push_back(at.issue("cannot read the list " + path + ": " + e.what()));
    return {};
  }
  std::istringstream in(text);
  const std::size_t issues_before = issues.size();
  std::vector<NamedInput> inputs;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    std::istringstream words(line);
    std::string uri;
    std::string name;
    std::string extra;
    if (!(words >> uri) || uri.front() == '#') continue;
    words >> name;
    if (words >> extra) {
      issues.push_back(at.issue(path + ":" + std::to_string(number) + ": a line is `URI` or `URI NAME` (got '" +
                                line + "')"));
      continue;
    }
    if (inputs.size() == kMaxInputs) {
      issues.push_back(at.issue("the list " + path + " has more than " + std::to_string(kMaxInputs) +
                                " inputs; at most that many run in one process"));
      return {};
    }
    inputs.push_back({uri, name});
  }
  if (inputs.empty() && issues.size() == issues_before) issues.push_back(at.issue("the list " + path + " names no input"));
  name_unnamed_inputs(inputs);
  return inputs;
}

}  // namespace fp
