// A video file as framepipe's own media layer opens it: its frame size, for tests that must
// tell one run's output from another's (a replaced stream writes its new size), and whether
// it plays yet (an MP4 opens only once finalized).
#pragma once

#include <exception>
#include <filesystem>
#include <utility>

#include "tests/e2e/cli_runner.hpp"

#include "media/frame_source.hpp"

namespace fp::test {

// {width, height} of `video`; throws MediaError when it cannot be opened.
inline std::pair<int, int> video_size(const std::filesystem::path& video) {
  const auto source = open_source(video.string());
  return {source->info().width, source->info().height};
}

// Frames of `video` (count_frames), or 0 when it does not open: not there, or not finalized.
inline long long playable_frames(const std::filesystem::path& video) {
  try {
    return count_frames(video);
  } catch (const std::exception&) {
    return 0;
  }
}

}  // namespace fp::test
