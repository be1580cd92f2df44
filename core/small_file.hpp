// Reads a small file an operator gives (a stream list, a token file) whole, without ever
// blocking: a FIFO, a device or a folder put in its place is refused at once instead of
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
  using std::runtime_error::runtime_error;
};

// Opened non-blocking (a link is followed: a Kubernetes ConfigMap's files are links), then
// refused unless it is a regular file of at most `max_bytes`.
std::string read_small_file(const std::filesystem::path& file, std::size_t max_bytes);

}  // namespace fp
