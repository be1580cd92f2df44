#include "pipeline/streams/learned_costs.hpp"

#include <cmath>

namespace fp {

namespace {

// Each new sample moves the average this far: a few streams (or windows) make it theirs.
constexpr double kLearningRate = 0.3;
// Below this many megapixels a second a stream's measure says more of its fixed costs (its
// threads waking) than of its pixels: it teaches nothing per pixel.
constexpr double kLeastMpps = 0.05;

}  // namespace

void LearnedCosts::learn(const std::string& template_name, double cores, double mpps) {
  if (!(mpps >= kLeastMpps) || !std::isfinite(cores) || cores < 0) return;
  const double sample = cores / mpps;
  std::lock_guard lock(mutex_);
  const auto [found, added] = cores_per_mpps_.emplace(template_name, sample);
  if (!added) found->second += kLearningRate * (sample - found->second);
}

std::optional<double> LearnedCosts::cores_per_mpps(const std::string& template_name) const {
  std::lock_guard lock(mutex_);
  const auto found = cores_per_mpps_.find(template_name);
  if (found == cores_per_mpps_.end()) return std::nullopt;
  return found->second;
}

std::map<std::string, double> LearnedCosts::all() const {
  std::lock_guard lock(mutex_);
  return cores_per_mpps_;
}

}  // namespace fp
