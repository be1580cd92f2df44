// Decoding a media file held in memory, exactly as open_source decodes a file on disk: the
// same demuxers (the format probed from the bytes), stream choice, decoder setup and
// conversion to I420. Used by the fuzz target for demuxing and decoding and by the tests
// that replay its findings.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "media/frame_source.hpp"

namespace fp {

struct DecodeOptions {
  // Largest frame (width x height) the decoder accepts; 0 keeps FFmpeg's default. A
  // larger frame in the stream is a decode error instead of a huge allocation.
  std::int64_t max_pixels = 0;
  int threads = 0;  // decoder threads; 0: one per core
};

// `bytes` must outlive the source; `name` is used in messages. Throws MediaError.
std::unique_ptr<FrameSource> open_memory_source(const std::string& name, std::span<const std::uint8_t> bytes,
                                                const PlaneMemory& memory = {}, const DecodeOptions& options = {});

}  // namespace fp
