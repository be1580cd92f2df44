#include "tools/denoise_quality/sweep_results.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>

namespace fp::quality {

nlohmann::json score_json(const Score& score) {
  return {{"psnr", score.psnr}, {"ssim", score.ssim}, {"flicker", score.flicker}, {"clean_flicker", score.clean_flicker}};
}

SweepResults::SweepResults(std::string command, std::string device, const std::filesystem::path& set_dir,
                           const SetInfo& set, FrameRange range)
    : command_(std::move(command)), device_(std::move(device)), set_dir_(set_dir.string()), set_(set), range_(range) {}

void SweepResults::add_noisy(int sigma, const std::string& sequence, const Score& score) {
  std::lock_guard lock(mutex_);
  noisy_.push_back({"noisy", sigma, 0, {}, sequence, score});
}

void SweepResults::add(const std::string& method, int sigma, int setting_index, const Setting& setting,
                       const std::string& sequence, const Score& score) {
  std::lock_guard lock(mutex_);
  entries_.push_back({method, sigma, setting_index, setting, sequence, score});
}

std::size_t SweepResults::sequence_index(const std::string& sequence) const {
  return static_cast<std::size_t>(std::find(set_.sequences.begin(), set_.sequences.end(), sequence) -
                                  set_.sequences.begin());
}

std::size_t SweepResults::method_index(const std::string& method) const {
  return static_cast<std::size_t>(
      std::find_if(methods_.begin(), methods_.end(), [&](const MethodInfo& m) { return m.id == method; }) -
      methods_.begin());
}

// In a fixed order whatever the order they were scored in: method, sigma, setting, sequence.
std::vector<SweepResults::Entry> SweepResults::sorted() const {
  std::vector<Entry> entries;
  {
    std::lock_guard lock(mutex_);
    entries = entries_;
  }
  std::stable_sort(entries.begin(), entries.end(), [this](const Entry& a, const Entry& b) {
    return std::tuple(method_index(a.method), a.sigma, a.setting_index, sequence_index(a.sequence)) <
           std::tuple(method_index(b.method), b.sigma, b.setting_index, sequence_index(b.sequence));
  });
  return entries;
}

std::vector<SweepResults::Pick> SweepResults::picks() const {
  struct Sums {  // one setting's scores summed over the sequences
    Setting setting;
    double psnr = 0;
    double ssim = 0;
    int sequences = 0;
  };
  // (method, sigma) -> its grid, in grid order
  std::map<std::pair<std::size_t, int>, std::map<int, Sums>> grids;
  for (const Entry& e : sorted()) {
    Sums& s = grids[{method_index(e.method), e.sigma}][e.setting_index];
    s.setting = e.setting;
    s.psnr += e.score.psnr;
    s.ssim += e.score.ssim;
    ++s.sequences;
  }
  std::vector<Pick> picks;
  for (const auto& [key, grid] : grids) {
    const auto& [method, sigma] = key;
    Pick best;
    best.grid_index = -1;
    for (const auto& [index, s] : grid) {
      if (s.sequences != static_cast<int>(set_.sequences.size()))
        throw std::logic_error(fmt::format("{} sigma {} {}: {} of {} sequences scored", methods_[method].id, sigma,
                                           s.setting.name, s.sequences, set_.sequences.size()));
      const double mean_psnr = s.psnr / s.sequences;
      if (best.grid_index < 0 || mean_psnr > best.mean_psnr)  // strictly: a tie keeps the earlier
        best = {methods_[method].id, sigma, s.setting, mean_psnr, s.ssim / s.sequences, index, 0};
    }
    best.grid_size = static_cast<int>(grid.size());
    picks.push_back(best);
  }
  return picks;
}

nlohmann::json SweepResults::to_json() const {
  nlohmann::json methods = nlohmann::json::array();
  for (const MethodInfo& m : methods_) methods.push_back({{"id", m.id}, {"label", m.label}, {"params", m.params}});
  nlohmann::json noisy = nlohmann::json::array();
  {
    std::lock_guard lock(mutex_);
    auto list = noisy_;
    std::stable_sort(list.begin(), list.end(), [this](const Entry& a, const Entry& b) {
      return std::tuple(a.sigma, sequence_index(a.sequence)) < std::tuple(b.sigma, sequence_index(b.sequence));
    });
    for (const Entry& e : list) {
      auto item = score_json(e.score);
      item["sigma"] = e.sigma;
      item["sequence"] = e.sequence;
      noisy.push_back(item);
    }
  }
  nlohmann::json results = nlohmann::json::array();
  for (const Entry& e : sorted()) {
    auto item = score_json(e.score);
    item["method"] = e.method;
    item["sigma"] = e.sigma;
    item["setting"] = e.setting.name;
    item["params"] = e.setting.params;
    item["sequence"] = e.sequence;
    results.push_back(item);
  }
  nlohmann::json chosen = nlohmann::json::array();
  for (const Pick& p : picks()) {
    chosen.push_back({{"method", p.method}, {"sigma", p.sigma}, {"setting", p.setting.name},
                     {"params", p.setting.params}, {"mean_psnr", p.mean_psnr}, {"mean_ssim", p.mean_ssim},
                      {"grid_index", p.grid_index}, {"grid_size", p.grid_size}});
  }
  return {
      {"tool", "denoise-quality"},
      {"command", command_},
      {"device", device_},
      {"set",
       {{"dir", set_dir_}, {"width", set_.size.width}, {"height", set_.size.height}, {"frames", set_.frames},
        {"sequences", set_.sequences}, {"sigmas", set_.sigmas}, {"checksum", set_.checksum}}},
      {"scored_frames", {{"from", range_.from}, {"to", range_.to}}},
      {"rule", kPickRule},
      {"methods", methods},
      {"noisy", noisy},
      {"results", results},
      {"picks", chosen},
  };
}

// A pick at either end of its grid may not be the method's best: the best may lie beyond.
bool on_grid_edge(int index, int size) { return size > 1 && (index == 0 || index == size - 1); }

void SweepResults::print_picks(std::FILE* out) const {
  fmt::print(out, "Picks ({}):\n", kPickRule);
  for (const Pick& p : picks())
    fmt::print(out, "  {:<24} sigma {:>2}: {:<26} mean PSNR {:6.2f} dB, mean SSIM {:.4f}{}\n", p.method, p.sigma,
               p.setting.name, p.mean_psnr, p.mean_ssim, on_grid_edge(p.grid_index, p.grid_size) ? " (the grid's edge)" : "");
}

}  // namespace fp::quality
