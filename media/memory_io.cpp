#include "media/memory_io.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "media/ffmpeg_common.hpp"


namespace fp::ff {

MemoryIo::MemoryIo(const std::string& name, std::span<const std::uint8_t> bytes)
    : bytes_(bytes), io_(name, this, &MemoryIo::read, &MemoryIo::seek) {}

int MemoryIo::read(void* opaque, std::uint8_t* buffer, int size) {
  auto* self = static_cast<MemoryIo*>(opaque);
  const auto total = static_cast<std::int64_t>(self->bytes_.size());
  const auto count = static_cast<int>(std::min<std::int64_t>(size, total - self->position_));
  if (count <= 0) return AVERROR_EOF;
  std::memcpy(buffer, self->bytes_.data() + self->position_, static_cast<std::size_t>(count));
  self->position_ += count;
  return count;
}

std::int64_t MemoryIo::seek(void* opaque, std::int64_t offset, int whence) {
  auto* self = static_cast<MemoryIo*>(opaque);
  const auto total = static_cast<std::int64_t>(self->bytes_.size());
  std::int64_t base = 0;
  switch (whence & ~AVSEEK_FORCE) {
    case AVSEEK_SIZE: return total;
    case SEEK_SET: base = 0; break;
    case SEEK_CUR: base = self->position_; break;
    case SEEK_END: base = total; break;
    default: return AVERROR(EINVAL);
  }
  // Demuxers pass offsets read from the file: any value. base is within [0, total], so
  // checking the offset against ±total first keeps the sum from overflowing.
  if (offset < -total || offset > total) return AVERROR(EINVAL);
  const std::int64_t target = base + offset;
  if (target < 0 || target > total) return AVERROR(EINVAL);
  self->position_ = target;
  return target;
}

}  // namespace fp::ff
