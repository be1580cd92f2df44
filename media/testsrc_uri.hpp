// The parameters of testsrc://WxH@FPS?noise=SIGMA&frames=N (private to media/; the source
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
};

inline bool is_testsrc_uri(const std::string& uri) { return uri.rfind("testsrc://", 0) == 0; }

// Throws MediaError "<uri>: <what is wrong>".
TestSourceParams parse_testsrc_uri(const std::string& uri);

}  // namespace fp
