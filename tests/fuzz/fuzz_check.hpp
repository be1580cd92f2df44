// What the fuzz targets share: an invariant check that stops the run where libFuzzer sees
// it (abort, with the input saved as a crash) and says which promise was broken.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

namespace fp::fuzz {

inline void require(bool holds, const char* promise) {
  if (holds) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n", promise);
  std::abort();
}

// For the checks that report the promise they found broken (empty: none).
inline void require_none(const std::string& broken) { require(broken.empty(), broken.c_str()); }

}  // namespace fp::fuzz
