// What `matrix` and `ffmpeg-matrix` measure and write: every method's score on every
// sequence, for every sigma and every setting of its grid (h for NL-means, the filter
// string for ffmpeg's), the noisy input's own score as a reference, and the pick: per method
// and sigma, ONE setting for all sequences, the one with the best mean PSNR over them.
// Both write the same JSON, which `table` merges.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include "tools/denoise_quality/metrics.hpp"
#include "tools/denoise_quality/synthetic_set.hpp"

namespace fp::quality {

inline constexpr const char* kPickRule =
    "per method and sigma, one setting for all sequences: the one whose PSNR averaged over the sequences is "
    "highest (a tie goes to the earlier setting of the grid)";

struct MethodInfo {
  std::string id;
  std::string label;
  nlohmann::json params;  // what stays fixed over the grid
};

struct Setting {
  std::string name;       // "h=20", "hqdn3d=8:6:12:9"
  nlohmann::json params;  // {"h": 20, "h_over_sigma": 1.0}, {"filter": ...}
};

class SweepResults {
 public:
  SweepResults(std::string command, std::string device, const std::filesystem::path& set_dir, const SetInfo& set,
               FrameRange range);

  void add_method(MethodInfo method) { methods_.push_back(std::move(method)); }
  // Both may be called from any thread.
  void add_noisy(int sigma, const std::string& sequence, const Score& score);
  void add(const std::string& method, int sigma, int setting_index, const Setting& setting,
           const std::string& sequence, const Score& score);

  nlohmann::json to_json() const;
  // One line a pick, and the rule.
  void print_picks(std::FILE* out) const;

 private:
  struct Entry {
    std::string method;
    int sigma = 0;
    int setting_index = 0;
    Setting setting;
    std::string sequence;
    Score score;
  };
  struct Pick {
    std::string method;
    int sigma = 0;
    Setting setting;
    double mean_psnr = 0;
    double mean_ssim = 0;
    int grid_index = 0;  // where the setting is in the method's grid of grid_size
    int grid_size = 0;
  };
  std::vector<Entry> sorted() const;
  std::vector<Pick> picks() const;
  std::size_t sequence_index(const std::string& sequence) const;
  std::size_t method_index(const std::string& method) const;

  std::string command_;
  std::string device_;
  std::string set_dir_;
  SetInfo set_;
  FrameRange range_;
  std::vector<MethodInfo> methods_;
  mutable std::mutex mutex_;
  std::vector<Entry> noisy_;
  std::vector<Entry> entries_;
};

nlohmann::json score_json(const Score& score);
bool on_grid_edge(int index, int size);

}  // namespace fp::quality
