// What the linked FFmpeg can write. Debian's has every muxer and protocol the tests use; the
// small FFmpeg built for the GPU machine (shared/tools/build-gpu-deps) has no HLS muxer and no
// SRT, so a test of those outputs skips there, saying so (on CI, tools/check-skips.sh fails
// such a skip).
#pragma once

extern "C" {
#include <libavformat/avformat.h>
}

#include <string>

namespace fp::test {

// "" when FFmpeg has the muxer `name`, else why the test cannot run.
inline std::string missing_muxer(const char* name) {
  if (av_guess_format(name, nullptr, nullptr) != nullptr) return "";
  return std::string("this FFmpeg has no ") + name + " muxer";
}

// "" when FFmpeg has the protocol `name` (e.g. "srt") for output, else why the test cannot run.
inline std::string missing_protocol(const char* name) {
  void* opaque = nullptr;
  while (const char* protocol = avio_enum_protocols(&opaque, 1))
    if (std::string(protocol) == name) return "";
  return std::string("this FFmpeg has no ") + name + " protocol";
}

}  // namespace fp::test
