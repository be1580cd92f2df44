#include "pipeline/streams/restart_backoff.hpp"

#include <algorithm>

namespace fp {

std::chrono::milliseconds RestartBackoff::after_failure(std::chrono::steady_clock::duration ran) {
  if (ran >= policy_.healthy_after) wait_ = std::chrono::milliseconds(0);  // it was well: start over
  // Doubled in a wider type first: a longest of hours must not overflow on the way.
  const auto doubled = std::chrono::milliseconds(std::min<long long>(wait_.count() * 2LL, policy_.longest.count()));
  wait_ = wait_.count() == 0 ? std::min(policy_.first, policy_.longest) : doubled;
  return wait_;
}

}  // namespace fp
