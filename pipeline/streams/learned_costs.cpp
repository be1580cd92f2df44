#include "pipeline/streams/learned_costs.hpp"

#include <cmath>

namespace fp {

namespace {

// Each new sample moves the average this far: a few streams (or windows) make it theirs.
constexpr double kLearningRate = 0.3;
// Below this many megapixels a second a stream's measure says more of its fixed costs (its
// threads waking) than of its pixels: it teaches nothing per pixel.
constexpr double kLeastMpps = 0.05;
// A cost that moved less than this share since it was written is not worth a write (the
// state file is fsync'ed; the average moves a little every second).
constexpr double kWorthSaving = 0.1;

}  // namespace

void LearnedCosts::learn(const std::string& template_name, const std::string& digest, double cores, double mpps) {
  if (!(mpps >= kLeastMpps) || !std::isfinite(cores) || cores < 0) return;
  const double sample = cores / mpps;
  std::lock_guard lock(mutex_);
  const auto [found, added] = costs_.try_emplace(template_name, LearnedCost{sample, digest});
  if (added) return;
  if (found->second.template_digest != digest) found->second = LearnedCost{sample, digest};  // an edited template
  else found->second.cores_per_mpps += kLearningRate * (sample - found->second.cores_per_mpps);
}

std::optional<double> LearnedCosts::cores_per_mpps(const std::string& template_name, const std::string& digest) const {
  std::lock_guard lock(mutex_);
  const auto found = costs_.find(template_name);
  if (found == costs_.end() || found->second.template_digest != digest) return std::nullopt;
  return found->second.cores_per_mpps;
}

std::map<std::string, LearnedCost> LearnedCosts::all() const {
  std::lock_guard lock(mutex_);
  return costs_;
}

void LearnedCosts::restore(const std::map<std::string, LearnedCost>& kept) {
  std::lock_guard lock(mutex_);
  costs_ = kept;
  written_ = kept;
}

bool LearnedCosts::worth_saving() const {
  std::lock_guard lock(mutex_);
  for (const auto& [name, cost] : costs_) {
    const auto written = written_.find(name);
    if (written == written_.end() || written->second.template_digest != cost.template_digest ||
        std::abs(cost.cores_per_mpps - written->second.cores_per_mpps) > kWorthSaving * written->second.cores_per_mpps)
      return true;
  }
  return false;
}

void LearnedCosts::saved(const std::map<std::string, LearnedCost>& written) {
  std::lock_guard lock(mutex_);
  written_ = written;
}

}  // namespace fp
