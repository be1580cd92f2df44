#include "media/fd_io.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "media/ffmpeg_common.hpp"

extern "C" {
#include <libavutil/mem.h>
}

namespace fp::ff {

namespace {

// FFmpeg's own default for file I/O; demuxers read through it in chunks of this size.
constexpr int kBufferSize = 32 * 1024;

}  // namespace

FdIo::FdIo(const std::string& name, UniqueFd fd) : fd_(std::move(fd)) {
  struct stat st {};
  const bool seekable = ::fstat(fd_.get(), &st) == 0 && S_ISREG(st.st_mode);
  auto* buffer = static_cast<std::uint8_t*>(av_malloc(kBufferSize));
  if (buffer == nullptr) fail(name, "cannot allocate an I/O buffer", AVERROR(ENOMEM));
  context_ = avio_alloc_context(buffer, kBufferSize, 0, this, &FdIo::read, nullptr, seekable ? &FdIo::seek : nullptr);
  if (context_ == nullptr) {
    av_free(buffer);
    fail(name, "cannot allocate an I/O context", AVERROR(ENOMEM));
  }
}

FdIo::~FdIo() {
  // FFmpeg may have replaced the buffer (it grows it to seek back), so free the current one.
  av_freep(&context_->buffer);
  avio_context_free(&context_);
}

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
