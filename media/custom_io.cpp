#include "media/custom_io.hpp"

#include "media/ffmpeg_common.hpp"

extern "C" {
#include <libavutil/mem.h>
}

namespace fp::ff {

namespace {

// FFmpeg's own default for file I/O; demuxers read through it in chunks of this size.
constexpr int kBufferSize = 32 * 1024;

}  // namespace

CustomIo::CustomIo(const std::string& name, void* opaque, Read read, Seek seek) {
  auto* buffer = static_cast<std::uint8_t*>(av_malloc(kBufferSize));
  if (buffer == nullptr) fail(name, "cannot allocate an I/O buffer", AVERROR(ENOMEM));
  context_ = avio_alloc_context(buffer, kBufferSize, 0, opaque, read, nullptr, seek);
  if (context_ == nullptr) {
    av_free(buffer);
    fail(name, "cannot allocate an I/O context", AVERROR(ENOMEM));
  }
}

CustomIo::~CustomIo() {
  // FFmpeg may have replaced the buffer (it grows it to seek back), so free the current one.
  av_freep(&context_->buffer);
  avio_context_free(&context_);
}

}  // namespace fp::ff
