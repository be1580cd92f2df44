// GPU tests skip themselves, saying so, when no CUDA device is present (as in CI).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

#include "cuda/device_query.hpp"

namespace fp::test {
// FRAMEPIPE_SMALL_SIZES=1 (set by tools/gpu-check.sh under compute-sanitizer): GPU tests keep
// to small frames and few of them, since the tools run kernels hundreds of times slower.
inline bool small_sizes() { return std::getenv("FRAMEPIPE_SMALL_SIZES") != nullptr; }
}  // namespace fp::test

#define FP_REQUIRE_GPU()                                                                   \
  do {                                                                                     \
    if (fp::cuda::device_count() == 0)                                                     \
      GTEST_SKIP() << "no CUDA device present (" << fp::cuda::runtime_summary() << ")";   \
  } while (0)
