// What the linked FFmpeg can write. Debian's has every muxer the tests use; the small FFmpeg
// built for the GPU machine (shared/tools/build-gpu-deps) has no HLS muxer, so a test of HLS
// output skips there, saying so (on CI, tools/check-skips.sh fails such a skip).
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

}  // namespace fp::test
