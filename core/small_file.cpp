#include "core/small_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/unique_fd.hpp"

namespace fp {

std::string read_small_file(const std::filesystem::path& file, std::size_t max_bytes, SmallFileLinks links) {
  const int no_follow = links == SmallFileLinks::Refuse ? O_NOFOLLOW : 0;
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | no_follow));
  if (!fd) throw SmallFileError(errno == ENOENT ? "no such file" : std::strerror(errno), errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw SmallFileError(std::strerror(errno), errno);
  if (S_ISDIR(st.st_mode)) throw SmallFileError("not a regular file (a directory)");
  if (!S_ISREG(st.st_mode)) throw SmallFileError("not a regular file (a FIFO or a device is never read)");
  const auto too_large = [max_bytes] { return SmallFileError("larger than " + std::to_string(max_bytes / 1024) + " KiB"); };
  if (static_cast<std::size_t>(st.st_size) > max_bytes) throw too_large();
  std::string text;
  char buffer[65536];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw SmallFileError(std::strerror(errno), errno);
    if (got == 0) break;
    text.append(buffer, static_cast<std::size_t>(got));
    // Grown since the stat (being written): the bound holds all the same.
    if (text.size() > max_bytes) throw too_large();
  }
  return text;
}

}  // namespace fp
