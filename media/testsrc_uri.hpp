// The parameters of testsrc://WxH@FPS?noise=SIGMA&frames=N&loop=K (private to media/; the source
// and probe share it).
#pragma once

#include <cstdint>
#include <string>

#include "core/frame.hpp"

namespace fp {

struct TestSourceParams {
  int width = 640;
  int height = 360;
  Rational fps{30, 1};
  double noise = 0;           // sigma of the Gaussian luma noise, in 8-bit code values
  std::int64_t frames = 300;  // 0: endless
  // > 0: the first `loop` frames are drawn once and then repeated (pts keep counting), so
  // that a frame costs a copy instead of a drawing: a source that never limits a benchmark.
  int loop = 0;
};

inline constexpr int kMaxTestsrcLoop = 600;

inline bool is_testsrc_uri(const std::string& uri) { return uri.rfind("testsrc://", 0) == 0; }

// Throws MediaError "<uri>: <what is wrong>".
TestSourceParams parse_testsrc_uri(const std::string& uri);

}  // namespace fp
