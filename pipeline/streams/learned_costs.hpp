// What serve has learned a stream of each template costs in cores, per megapixel a second
// (its frames' pixels times its frame rate): so that a template without `--cost` is admitted
// on what its streams were seen to use, and one never seen on a conservative guess, instead of
// on the process's measured CPU alone, which lags a burst of PUTs by seconds.
//
// A stream teaches its template once it has run a whole CPU window (its cpu_cores then cover
// it: manager_impl.hpp attribute_cpu), an exponential average over such samples. Each cost is
// for one text of its template (StreamPlan::template_digest): an edited template starts from
// the guess again. Kept in the state file (state_file.hpp), so a restart keeps what it learned.
#pragma once
#if !defined(FRAMEPIPE_ROOM_STREAMS)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/streams/learned_costs.hpp is private to pipeline/streams/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "pipeline/stream_spec/state_file.hpp"

namespace fp {

// A never-seen template's stream, in cores per megapixel a second. On the CPU, above what
// serve's own template takes (config/serve_denoise.yaml: NL-means patch 5 search 11 and x264
// into .mkv, 320x180@30 on the 2-core dev box: 8 streams kept 30 fps at 0.20-0.30 cores each,
// 16 made 11 fps at 0.12; learned 0.20-0.21), with a quarter to spare: 0.25. On a GPU, what an
// x264 output alone takes (1080p30 veryfast: ~2 cores at 62 Mpx/s, 0.032), rounded up.
inline constexpr double kUnseenCpuCoresPerMpps = 0.25;
inline constexpr double kUnseenGpuCoresPerMpps = 0.04;

class LearnedCosts {
 public:
  // One stream's measure: `cores` at `mpps` megapixels a second, of the template's text `digest`.
  void learn(const std::string& template_name, const std::string& digest, double cores, double mpps);
  // What was learned of this text of the template, if anything.
  std::optional<double> cores_per_mpps(const std::string& template_name, const std::string& digest) const;
  std::map<std::string, LearnedCost> all() const;

  // What a state file kept, taken as learned (the caller keeps only the templates' current texts).
  void restore(const std::map<std::string, LearnedCost>& kept);
  // Whether the state file is worth writing again for what was learned since `saved` was
  // called: a template learned for the first time, or a cost moved by more than a tenth.
  bool worth_saving() const;
  void saved(const std::map<std::string, LearnedCost>& written);

 private:
  mutable std::mutex mutex_;
  std::map<std::string, LearnedCost> costs_;
  std::map<std::string, LearnedCost> written_;
};

}  // namespace fp
