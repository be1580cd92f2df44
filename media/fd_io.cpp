#include "media/fd_io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "media/ffmpeg_common.hpp"

namespace fp::ff {

namespace {

// A regular file is seekable; a FIFO or a device is read as a stream.
bool seekable(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

FdIo::FdIo(const std::string& name, UniqueFd fd)
    : fd_(std::move(fd)), io_(name, this, &FdIo::read, seekable(fd_.get()) ? &FdIo::seek : nullptr) {}

int FdIo::read(void* opaque, std::uint8_t* buffer, int size) {
  auto* self = static_cast<FdIo*>(opaque);
  for (;;) {
    const ssize_t count = ::read(self->fd_.get(), buffer, static_cast<std::size_t>(size));
    if (count > 0) return static_cast<int>(count);
    if (count == 0) return AVERROR_EOF;
    if (errno != EINTR) return AVERROR(errno);
  }
}

std::int64_t FdIo::seek(void* opaque, std::int64_t offset, int whence) {
  auto* self = static_cast<FdIo*>(opaque);
  if ((whence & ~AVSEEK_FORCE) == AVSEEK_SIZE) {
    struct stat st {};
    return ::fstat(self->fd_.get(), &st) == 0 ? static_cast<std::int64_t>(st.st_size) : AVERROR(errno);
  }
  const off_t at = ::lseek(self->fd_.get(), static_cast<off_t>(offset), whence & ~AVSEEK_FORCE);
  return at < 0 ? AVERROR(errno) : static_cast<std::int64_t>(at);
}

}  // namespace fp::ff
