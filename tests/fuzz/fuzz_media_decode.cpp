// Fuzz target: any bytes as a media file, demuxed and decoded through framepipe's own
// source (open_memory_source: a custom AVIOContext over the bytes, then the same stream
// choice, decoder setup and I420 conversion as a file on disk). Each input either yields
// frames of the announced size or ends with a MediaError; a crash, leak, undefined
// behaviour in framepipe's code or a hang is a bug.
//
// The work per input is bounded so that libFuzzer's timeout means a real hang: at most
// kMaxFrames frames, decoder frames of at most kMaxPixels, one decoder thread (the same
// decoding, without threads that would make runs nondeterministic).
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "media/media_error.hpp"
#include "media/memory_source.hpp"
#include "tests/fuzz/fuzz_check.hpp"

extern "C" {
#include <libavutil/log.h>
}

namespace {

constexpr int kMaxFrames = 8;
constexpr std::int64_t kMaxPixels = 512 * 512;
constexpr std::string_view kName = "fuzz-input";

// FFmpeg is Debian's build, not instrumented, so libFuzzer's coverage sees framepipe's
// code only. These counters (libFuzzer reads the section as extra coverage) give it a coarse
// view of what happened inside: the decoder chosen, the error met, the frames decoded and
// the size class, so that an input reaching a new outcome is kept and mutated further.
__attribute__((used, section("__libfuzzer_extra_counters"))) std::uint8_t g_outcomes[1 << 14];

void note(std::string_view kind, std::string_view what) {
  const std::size_t slot = std::hash<std::string_view>{}(what) ^ (std::hash<std::string_view>{}(kind) * 31);
  std::uint8_t& counter = g_outcomes[slot % sizeof(g_outcomes)];
  if (counter < 255) ++counter;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  av_log_set_level(AV_LOG_QUIET);  // FFmpeg's complaints about broken input are expected
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using fp::fuzz::require;
  try {
    const auto source = fp::open_memory_source(std::string(kName), std::span(data, size), {},
                                               fp::DecodeOptions{.max_pixels = kMaxPixels, .threads = 1});
    const fp::VideoInfo& info = source->info();
    require(info.width > 0 && info.height > 0, "an opened source has a frame size");
    require(static_cast<std::int64_t>(info.width) * info.height <= kMaxPixels, "the frame size is within max_pixels");
    note("decoder", source->decoder_name());
    note("size", std::to_string(std::bit_width(static_cast<unsigned>(info.width))) + "x" +
                     std::to_string(std::bit_width(static_cast<unsigned>(info.height))));
    int frames = 0;
    for (; frames < kMaxFrames; ++frames) {
      const auto frame = source->read();
      if (!frame) break;
      require(frame->planes[0].width == info.width && frame->planes[0].height == info.height,
              "every frame has the size the source announced");
      require(frame->sequence == frames, "frames are numbered in order");
    }
    note("frames", std::to_string(frames));
  } catch (const fp::MediaError& error) {
    // The expected outcome for most inputs: not a video, or damaged. Every message names
    // the input first.
    const std::string_view message = error.what();
    require(message.substr(0, kName.size()) == kName, "a media error names the input");
    note("error", message);
  }
  return 0;
}
