#include "service/stage_seconds.hpp"

namespace fp::service {

namespace {
std::map<std::string, double> seconds_by_type(const RunStats& stats) {
  std::map<std::string, double> seconds;
  for (const auto& stage : stats.stages) seconds[stage.type] += stage.total_ms / 1000.0;
  return seconds;
}

bool went_down(const std::map<std::string, double>& before, const std::map<std::string, double>& now) {
  for (const auto& [type, seconds] : before) {
    const auto it = now.find(type);
    if (it == now.end() || it->second < seconds) return true;
  }
  return false;
}
}  // namespace

std::map<std::string, double> StageSecondsTotals::update(const std::vector<StreamStatus>& streams) {
  std::lock_guard lock(mutex_);
  std::map<std::string, ByType> now;
  for (const auto& stream : streams) now[stream.name] = seconds_by_type(stream.stats);
  for (const auto& [name, before] : seen_) {
    const auto it = now.find(name);
    // Gone, or restarted under the same name (its counters began again from zero).
    if (it == now.end() || went_down(before, it->second))
      for (const auto& [type, seconds] : before) gone_[type] += seconds;
  }
  seen_ = now;
  ByType totals = gone_;
  for (const auto& [name, by_type] : now)
    for (const auto& [type, seconds] : by_type) totals[type] += seconds;
  return totals;
}

}  // namespace fp::service
