// What makes two paths one file, for the clash checks (file_clashes.hpp, stream_file_index.hpp):
// computed once per path, compared many times.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>

namespace fp {

struct FileIdentity {
  // The lexically normalized absolute path, symlinks resolved where the file or its folders
  // exist (std::filesystem::weakly_canonical).
  std::string canonical;
  std::optional<std::pair<dev_t, ino_t>> inode;  // for a file that exists
  nlink_t links = 0;                             // its hard links (0: none there)
  bool hls = false;  // an HLS playlist (its segments are files too)
  // A character device (/dev/null, /dev/full, a terminal) holds no contents to destroy or
  // interleave: any number of outputs may write to it.
  bool character_device = false;
};

// One weakly_canonical and one stat of `path` (a local file path: file_path_of()).
FileIdentity identity_of(const std::string& path);

// The same canonical path, or the same device and inode (a hard link).
bool same_identity(const FileIdentity& a, const FileIdentity& b);

// `file` is one of the segments FFmpeg's HLS muxer writes beside `playlist`:
// out.m3u8 -> out0.ts, out1.ts...
bool is_hls_segment_of(const FileIdentity& file, const FileIdentity& playlist);

// `a` and `b` are one file, or one is a segment of the other, an HLS playlist.
bool clash(const FileIdentity& a, const FileIdentity& b);

}  // namespace fp
