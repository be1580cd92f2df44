// The frame size of a video file, as framepipe's own media layer opens it: for tests that
// must tell one run's output from another's (a replaced stream writes its new size).
#pragma once

#include <filesystem>
#include <utility>

#include "media/frame_source.hpp"

namespace fp::test {

// {width, height} of `video`; throws MediaError when it cannot be opened.
inline std::pair<int, int> video_size(const std::filesystem::path& video) {
  const auto source = open_source(video.string());
  return {source->info().width, source->info().height};
}

}  // namespace fp::test
