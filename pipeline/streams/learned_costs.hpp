// What serve has learned a stream of each template costs in cores, per megapixel a second
// (its frames' pixels times its frame rate): so that a template without `--cost` is admitted
// on what its streams were seen to use, and one never seen on a conservative guess, instead of
// on the process's measured CPU alone, which lags a burst of PUTs by seconds.
//
// A stream teaches its template once it has run a whole CPU window (its cpu_cores then cover
// it: manager_impl.hpp attribute_cpu), an exponential average over such samples. Kept while
// the process runs.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

namespace fp {

// A never-seen template's stream, in cores per megapixel a second: on the CPU, what the costliest
// measured so far takes (40 live NL-means 320x180 streams on 2 cores: ~15 kept up, 0.12 cores
// each at 1.73 Mpx/s, 0.07); on a GPU, what an x264 output alone takes (1080p30 veryfast: ~2
// cores at 62 Mpx/s, 0.032), rounded up.
inline constexpr double kUnseenCpuCoresPerMpps = 0.07;
inline constexpr double kUnseenGpuCoresPerMpps = 0.04;

class LearnedCosts {
 public:
  // One stream's measure: `cores` at `mpps` megapixels a second.
  void learn(const std::string& template_name, double cores, double mpps);
  std::optional<double> cores_per_mpps(const std::string& template_name) const;
  std::map<std::string, double> all() const;

 private:
  mutable std::mutex mutex_;
  std::map<std::string, double> cores_per_mpps_;
};

}  // namespace fp
