#include "pipeline/engine/output_paths.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace fp {

std::string cannot_create_reason(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return std::strerror(EISDIR);
    // access() also says EROFS for a file on a read-only mount, even to root.
    return ::access(path.c_str(), W_OK) == 0 ? std::string() : std::strerror(errno);
  }
  if (errno != ENOENT) return std::strerror(errno);  // ENOTDIR, EACCES, ELOOP...
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) parent = std::filesystem::path(".");
  if (::stat(parent.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return std::strerror(ENOTDIR);
  return ::access(parent.c_str(), W_OK | X_OK) == 0 ? std::string() : std::strerror(errno);
}

}  // namespace fp
