#include "pipeline/definition/file_identity.hpp"

#include <sys/stat.h>

#include <cctype>
#include <filesystem>

#include "media/output_target.hpp"

namespace fp {

namespace {

namespace fs = std::filesystem;

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

}  // namespace

FileIdentity identity_of(const std::string& path) {
  FileIdentity id{.canonical = canonical_text(path), .inode = std::nullopt, .links = 0, .hls = is_hls(path)};
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    id.inode = std::make_pair(st.st_dev, st.st_ino);
    id.links = st.st_nlink;
    id.character_device = S_ISCHR(st.st_mode);
  }
  return id;
}

bool same_identity(const FileIdentity& a, const FileIdentity& b) {
  return a.canonical == b.canonical || (a.inode && b.inode && *a.inode == *b.inode);
}

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

bool clash(const FileIdentity& a, const FileIdentity& b) {
  return same_identity(a, b) || is_hls_segment_of(b, a) || is_hls_segment_of(a, b);
}

}  // namespace fp
