// GPU tests skip themselves, saying so, when no CUDA device is present (as in CI).
#pragma once

#include <gtest/gtest.h>

#include "cuda/device_query.hpp"

#define FP_REQUIRE_GPU()                                                                   \
  do {                                                                                     \
    if (fp::cuda::device_count() == 0)                                                     \
      GTEST_SKIP() << "no CUDA device present (" << fp::cuda::runtime_summary() << ")";   \
  } while (0)
