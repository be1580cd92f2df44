// Fuzz target: any bytes as a media file, demuxed and decoded through framepipe's own
// source (open_memory_source: a custom AVIOContext over the bytes, then the same stream
// choice, decoder setup and I420 conversion as a file on disk), with bounded work per
// input (media_fuzz_decode.hpp). Each input either yields frames of the announced size or
// ends with a one-line MediaError naming the input; a crash, a leak, undefined behaviour
// in framepipe's code or a hang is a bug.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "tests/fuzz/fuzz_check.hpp"
#include "tests/fuzz/media_fuzz_decode.hpp"

extern "C" {
#include <libavutil/log.h>
}

namespace {

// FFmpeg is Debian's build, not instrumented, so libFuzzer's coverage sees framepipe's
// code only. These counters (libFuzzer reads the section as extra coverage) give it a coarse
// view of what happened inside: the decoder chosen, the error met, the frames decoded and
// the size class, so that an input reaching a new outcome is kept and mutated further.
__attribute__((used, section("__libfuzzer_extra_counters"))) std::uint8_t g_outcomes[1 << 14];

void note(std::string_view kind, const std::string& what) {
  const std::size_t slot = std::hash<std::string>{}(what) ^ (std::hash<std::string_view>{}(kind) * 31);
  std::uint8_t& counter = g_outcomes[slot % sizeof(g_outcomes)];
  if (counter < 255) ++counter;
}

std::string size_class(int width, int height) {
  return std::to_string(std::bit_width(static_cast<unsigned>(width))) + "x" +
         std::to_string(std::bit_width(static_cast<unsigned>(height)));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  av_log_set_level(AV_LOG_QUIET);  // FFmpeg's complaints about broken input are expected
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const fp::fuzz::DecodeOutcome outcome = fp::fuzz::decode_bounded(std::span(data, size));
  fp::fuzz::require_none(outcome.broken);
  note("decoder", outcome.decoder);
  note("size", size_class(outcome.width, outcome.height));
  note("frames", std::to_string(outcome.frames));
  note("error", outcome.error);
  return 0;
}
