// What the media_decode fuzz target does with one input, shared with the GoogleTest that
// replays its seeds and regressions in the normal suite (tests/media/test_memory_source.cpp):
// open the bytes as a media file through framepipe's own source and decode a bounded
// number of frames, checking what the source promises on the way.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "media/media_error.hpp"
#include "media/memory_source.hpp"

namespace fp::fuzz {

// Bounded work per input, so that a fuzzer's timeout means a real hang: at most kMaxFrames
// frames, each at most max_pixels (a larger one is a decode error, not a huge allocation),
// on one decoder thread (the same decoding, without threads that make runs nondeterministic).
constexpr int kMaxFrames = 8;
constexpr DecodeOptions kMediaDecodeOptions{.max_pixels = 512 * 512, .threads = 1};
constexpr std::string_view kMediaInputName = "fuzz-input";

struct DecodeOutcome {
  std::string decoder;  // empty when the input did not open
  int width = 0;
  int height = 0;
  int frames = 0;
  std::string error;   // the MediaError, if one ended it
  std::string broken;  // the first promise broken, or empty
};

inline DecodeOutcome decode_bounded(std::span<const std::uint8_t> bytes) {
  DecodeOutcome out;
  const auto broken = [&](const char* promise) {
    if (out.broken.empty()) out.broken = promise;
  };
  try {
    const auto source = open_memory_source(std::string(kMediaInputName), bytes, {}, kMediaDecodeOptions);
    const VideoInfo& info = source->info();
    out.decoder = source->decoder_name();
    out.width = info.width;
    out.height = info.height;
    if (info.width <= 0 || info.height <= 0) broken("an opened source has a frame size");
    if (static_cast<std::int64_t>(info.width) * info.height > kMediaDecodeOptions.max_pixels)
      broken("the frame size is within max_pixels");
    for (; out.frames < kMaxFrames; ++out.frames) {
      const auto frame = source->read();
      if (!frame) break;
      if (frame->planes[0].width != info.width || frame->planes[0].height != info.height)
        broken("every frame has the size the source announced");
      if (frame->sequence != out.frames) broken("frames are numbered in order");
    }
  } catch (const MediaError& error) {
    out.error = error.what();
    if (out.error.substr(0, kMediaInputName.size()) != kMediaInputName) broken("a media error names the input");
    if (out.error.find('\n') != std::string::npos) broken("a media error is one line");
  }
  return out;
}

}  // namespace fp::fuzz
