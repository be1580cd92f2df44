// Reads a small file an operator gives (a stream list, a token file, the state file) whole,
// without ever blocking: a FIFO, a device or a folder put in its place is refused at once instead of
// holding a thread (serve's start, its list poll) until someone writes to it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace fp {

// Why the file cannot be read ("no such file", "not a regular file", "larger than 1 MiB",
// the system's words); the caller names the file and what it is.
class SmallFileError : public std::runtime_error {
 public:
  explicit SmallFileError(const std::string& what, int code = 0) : std::runtime_error(what), code_(code) {}
  // The errno of the call that failed (ENOENT, ELOOP, EACCES...); 0 for a refusal of ours
  // (not a regular file, too large).
  int code() const { return code_; }

 private:
  int code_;
};

// Whether a link in the file's place is followed (a Kubernetes ConfigMap's files are links)
// or refused (ELOOP): a file replaced by renaming over it, as the state file is, must be the
// file itself, or it would be read from one file and written to another.
enum class SmallFileLinks { Follow, Refuse };

// Opened non-blocking, then refused unless it is a regular file of at most `max_bytes`.
std::string read_small_file(const std::filesystem::path& file, std::size_t max_bytes,
                            SmallFileLinks links = SmallFileLinks::Follow);

}  // namespace fp
