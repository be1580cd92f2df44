// What the fuzz targets share: an invariant check that stops the run where libFuzzer sees
// it (abort, with the input saved as a crash) and says which promise was broken.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace fp::fuzz {

inline void require(bool holds, const char* promise) {
  if (holds) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", promise);
  std::abort();
}

}  // namespace fp::fuzz
