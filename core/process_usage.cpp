#include "core/process_usage.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <fstream>

namespace fp {

double process_cpu_seconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0;
  std::size_t resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

void CpuRateWindow::add(Clock::time_point at, double cpu_seconds) {
  samples_.emplace_back(at, cpu_seconds);
  // Keep one sample at least `window_` old, so the average always spans the whole window.
  while (samples_.size() > 2 && at - samples_[1].first >= window_) samples_.pop_front();
}

double CpuRateWindow::cores() const {
  if (samples_.size() < 2) return 0;
  const double seconds = std::chrono::duration<double>(samples_.back().first - samples_.front().first).count();
  if (seconds < 0.5) return 0;
  return (samples_.back().second - samples_.front().second) / seconds;
}

}  // namespace fp
