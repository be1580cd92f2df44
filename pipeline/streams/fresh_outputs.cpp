#include "pipeline/streams/fresh_outputs.hpp"

#include <set>
#include <system_error>

#include <fmt/format.h>

#include "core/printable_text.hpp"
#include "media/output_target.hpp"

namespace fp {

namespace fs = std::filesystem;

std::string suffixed_output(const std::string& path, int n) {
  const fs::path p(path);
  return (p.parent_path() / (p.stem().string() + "~" + std::to_string(n) + p.extension().string())).string();
}

namespace {

// A file an earlier run may have written: a regular file, or a link (which the confined
// open would refuse anyway). A FIFO, a device or a folder an operator put there is no
// recording to keep: the path stays, and opening it decides (a FIFO waits for its reader).
bool a_file_there(const std::string& path) {
  std::error_code ec;
  const auto type = fs::symlink_status(path, ec).type();
  return type == fs::file_type::regular || type == fs::file_type::symlink;
}

}  // namespace

void move_outputs_beside_existing(StreamPlan& plan, const std::function<bool(const std::string&)>& in_use) {
  std::set<std::string> own;
  for (const auto& use : plan.files)
    if (use.written) own.insert(use.path);
  const auto taken = [&](const std::string& path) { return own.contains(path) || in_use(path) || a_file_there(path); };
  for (auto& use : plan.files) {
    if (!use.written || is_network_output(use.path)) continue;
    const std::string old_path = use.path;
    own.erase(old_path);
    std::string path = old_path;
    // Bounded: a path the file system reads otherwise than the string (a NUL inside, which
    // the readers refuse before this) would be taken at every suffix.
    for (int n = 1; taken(path); ++n) {
      if (n > kMostOutputSuffixes)
        throw StreamRejected(409, fmt::format("{}: no free name beside it ({} suffixes tried, all taken): move the "
                                              "earlier outputs away",
                                              printable_text(old_path), kMostOutputSuffixes));
      path = suffixed_output(old_path, n);
    }
    own.insert(path);
    if (path == old_path) continue;
    use.path = path;
    for (auto& output : plan.outputs)
      if (output == old_path) output = path;  // a local path holds no credential to mask
    for (auto& stage : plan.definition.stages)
      for (const auto& param : path_params(stage))
        if (param.path == old_path) stage.params.set(param.name, path);
  }
}

}  // namespace fp
