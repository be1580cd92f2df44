#include "pipeline/file_clashes.hpp"

#include <sys/stat.h>

#include <cctype>
#include <filesystem>
#include <optional>
#include <utility>

#include "media/output_target.hpp"
#include "media/stream_uri.hpp"

namespace fp {

namespace {

namespace fs = std::filesystem;

// What makes a file the same file, computed once per use.
struct FileIdentity {
  std::string canonical;
  std::optional<std::pair<dev_t, ino_t>> inode;  // for a file that exists
  bool hls = false;  // an HLS playlist (its segments are files too)
  // A character device (/dev/null, /dev/full, a terminal) holds no contents to destroy or
  // interleave: any number of outputs may write to it.
  bool character_device = false;
};

std::string canonical_text(const std::string& path) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec);
  if (ec) absolute = fs::path(path);
  fs::path canonical = fs::weakly_canonical(absolute, ec);
  if (ec) canonical = absolute;  // a folder we may not look into: the spelling still counts
  return canonical.lexically_normal().string();
}

bool is_hls(const std::string& output) {
  try {
    return parse_output_target(output).kind == OutputKind::Hls;
  } catch (const std::exception&) {
    return false;
  }
}

FileIdentity identity_of(const std::string& path) {
  FileIdentity id{.canonical = canonical_text(path), .inode = std::nullopt, .hls = is_hls(path)};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.inode = std::make_pair(st.st_dev, st.st_ino);
    id.character_device = S_ISCHR(st.st_mode);
  }
  return id;
}

bool same_identity(const FileIdentity& a, const FileIdentity& b) {
  return a.canonical == b.canonical || (a.inode && b.inode && *a.inode == *b.inode);
}

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

// FFmpeg's HLS muxer names its segments after the playlist: out.m3u8 -> out0.ts, out1.ts...
bool is_hls_segment_of(const FileIdentity& file, const FileIdentity& playlist) {
  if (!playlist.hls) return false;
  const fs::path in = file.canonical;
  const fs::path list = playlist.canonical;
  if (in.parent_path() != list.parent_path() || in.extension() != ".ts") return false;
  const std::string stem = in.stem().string();
  const std::string base = list.stem().string();
  if (stem.size() <= base.size() || stem.compare(0, base.size(), base) != 0) return false;
  for (std::size_t i = base.size(); i < stem.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(stem[i]))) return false;
  return true;
}

// `a` and `b` are one file, or one is a segment of the other, an HLS playlist.
bool clash(const FileIdentity& a, const FileIdentity& b) {
  return same_identity(a, b) || is_hls_segment_of(b, a) || is_hls_segment_of(a, b);
}

void report(const FileUse& output, const std::string& message, std::vector<ConfigIssue>& issues) {
  ConfigIssue issue = output.where;
  // URIs may carry a password (file:// does not, but a message must never risk one).
  issue.message = mask_uris_in_text(message);
  issues.push_back(std::move(issue));
}

}  // namespace

std::string file_path_of(const FileUse& use) {
  const std::string& path = use.path;
  if (path.empty() || path == "null") return "";
  bool file = path.find("://") == std::string::npos || starts_with(path, "file://");
  if (use.written) {
    try {
      const OutputKind kind = parse_output_target(path).kind;
      file = kind == OutputKind::File || kind == OutputKind::Hls;
    } catch (const std::exception&) {
      // Not a media output (luma_histogram's text file), or a bad one (reported elsewhere).
    }
  }
  if (!file) return "";
  // FFmpeg's file protocol, spelled out, names the same file.
  if (starts_with(path, "file://")) return path.substr(7);
  if (starts_with(path, "file:")) return path.substr(5);
  return path;
}

void check_file_clashes(const std::vector<FileUse>& uses, std::vector<ConfigIssue>& issues) {
  struct Known {
    const FileUse* use;
    FileIdentity id;
  };
  std::vector<Known> inputs;
  std::vector<Known> outputs;
  for (const auto& use : uses)
    if (const std::string path = file_path_of(use); !path.empty())
      if (FileIdentity id = identity_of(path); !id.character_device)
        (use.written ? outputs : inputs).push_back({&use, std::move(id)});
  for (const auto& output : outputs) {
    const FileUse& out = *output.use;
    for (const auto& input : inputs)
      if (clash(output.id, input.id)) {
        report(out, "'" + out.path + "' (" + out.what + ") would overwrite '" + input.use->path + "' (" +
                        input.use->what +
                        (same_identity(output.id, input.id) ? "): the same file" : "), as one of its HLS segments") +
                        "; write elsewhere",
               issues);
        break;
      }
    for (const auto& earlier : outputs) {
      if (&earlier == &output) break;
      if (clash(output.id, earlier.id)) {
        report(out, "'" + out.path + "' (" + out.what + ") and '" + earlier.use->path + "' (" + earlier.use->what +
                        ") are one file: each output needs a file of its own",
               issues);
        break;
      }
    }
  }
}

}  // namespace fp
