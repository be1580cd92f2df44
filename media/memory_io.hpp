// An AVIOContext that reads a buffer in memory, so that a demuxer reads bytes held by the
// program exactly as it reads a file (private to media/; behind open_memory_source).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "media/custom_io.hpp"

namespace fp::ff {

class MemoryIo {
 public:
  // `bytes` must outlive the MemoryIo. Throws MediaError naming `name` when out of memory.
  MemoryIo(const std::string& name, std::span<const std::uint8_t> bytes);
  MemoryIo(const MemoryIo&) = delete;
  MemoryIo& operator=(const MemoryIo&) = delete;

  AVIOContext* context() const { return io_.context(); }

 private:
  static int read(void* opaque, std::uint8_t* buffer, int size);
  static std::int64_t seek(void* opaque, std::int64_t offset, int whence);

  std::span<const std::uint8_t> bytes_;
  std::int64_t position_ = 0;
  CustomIo io_;
};

}  // namespace fp::ff
