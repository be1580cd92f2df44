// An owned AVIOContext that reads through callbacks (private to media/): what the demuxer reads
// when its bytes do not come from a name FFmpeg opens itself — bytes in memory (MemoryIo), a
// file already open beneath its root (FdIo).
#pragma once

#include <cstdint>
#include <string>

extern "C" {
#include <libavformat/avio.h>
}

namespace fp::ff {

class CustomIo {
 public:
  using Read = int (*)(void* opaque, std::uint8_t* buffer, int size);
  using Seek = std::int64_t (*)(void* opaque, std::int64_t offset, int whence);

  // `seek` null: the input is read as a stream. Throws MediaError naming `name` when out of memory.
  CustomIo(const std::string& name, void* opaque, Read read, Seek seek);
  ~CustomIo();
  CustomIo(const CustomIo&) = delete;
  CustomIo& operator=(const CustomIo&) = delete;

  AVIOContext* context() const { return context_; }

 private:
  AVIOContext* context_ = nullptr;
};

}  // namespace fp::ff
