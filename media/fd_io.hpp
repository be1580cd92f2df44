// An AVIOContext that reads a file the program already holds open (private to media/): how
// a confined input (core/open_beneath.hpp) reaches the demuxer. The demuxer then reads
// exactly the inode opened beneath the root, whatever its name means by now, and nothing
// else: a request to open another file by name (a playlist entry, a reference movie) is
// refused by the input (open_input), since such a name was never checked.
#pragma once

#include <cstdint>
#include <string>

#include "core/unique_fd.hpp"
#include "media/custom_io.hpp"

namespace fp::ff {

class FdIo {
 public:
  // Takes the descriptor. A regular file is seekable; a FIFO or a device is read as a stream.
  // Throws MediaError naming `name` when out of memory.
  FdIo(const std::string& name, UniqueFd fd);
  FdIo(const FdIo&) = delete;
  FdIo& operator=(const FdIo&) = delete;

  AVIOContext* context() const { return io_.context(); }

 private:
  static int read(void* opaque, std::uint8_t* buffer, int size);
  static std::int64_t seek(void* opaque, std::int64_t offset, int whence);

  UniqueFd fd_;
  CustomIo io_;  // after fd_: built from it
};

}  // namespace fp::ff
