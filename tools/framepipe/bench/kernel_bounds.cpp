#include "tools/framepipe/bench/kernel_bounds.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cctype>

namespace fp::bench {

namespace {

void put(nlohmann::ordered_json& j, const char* key, const std::optional<double>& value) {
  // Two decimals, as ncu prints them: more would claim a precision nobody measured.
  if (value) {
    j[key] = std::round(*value * 100) / 100;
  } else {
    j[key] = nullptr;
  }
}

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Bound limiting(const KernelBounds& k) {
  Bound best;
  const std::pair<const char*, const std::optional<double>*> parts[] = {
      {"sm", &k.sm_pct}, {"memory", &k.memory_pct}, {"sfu", &k.sfu_pct}};
  for (const auto& [name, value] : parts) {
    if (*value && (best.name.empty() || **value > best.pct)) best = {name, **value};
  }
  return best;
}

nlohmann::ordered_json to_json(const KernelBounds& k) {
  nlohmann::ordered_json j;
  j["kernel"] = k.kernel;
  put(j, "sm_pct", k.sm_pct);
  put(j, "memory_pct", k.memory_pct);
  put(j, "sfu_pct", k.sfu_pct);
  const auto bound = limiting(k);
  if (bound.name.empty()) {
    j["bound"] = nullptr;
    j["bound_pct"] = nullptr;
  } else {
    j["bound"] = bound.name;
    put(j, "bound_pct", bound.pct);
  }
  if (k.dram_pct || k.l1_pct || k.l2_pct) {
    put(j, "dram_pct", k.dram_pct);
    put(j, "l1_pct", k.l1_pct);
    put(j, "l2_pct", k.l2_pct);
  }
  if (k.duration_us) put(j, "ncu_duration_us", k.duration_us);
  if (!k.model.empty()) j["model"] = k.model;
  return j;
}

void add_bounds_json(nlohmann::ordered_json& case_json, const std::vector<KernelBounds>& kernels, bool estimate) {
  case_json["bounds_source"] = estimate ? "estimate" : "ncu";
  auto& array = case_json["bounds"] = nlohmann::ordered_json::array();
  for (const auto& k : kernels) array.push_back(to_json(k));
}

std::string bound_cell(const std::vector<KernelBounds>& kernels, bool estimate) {
  if (kernels.empty()) return "-";
  // The longest kernel is the one worth reading; without durations, the first.
  auto longest = kernels.begin();
  for (auto it = kernels.begin(); it != kernels.end(); ++it)
    if (it->duration_us && (!longest->duration_us || *it->duration_us > *longest->duration_us)) longest = it;
  const auto bound = limiting(*longest);
  if (bound.name.empty()) return "-";
  std::string cell = fmt::format("{}{} {:.0f}%", estimate ? "~" : "", bound.name == "memory" ? "mem" : upper(bound.name),
                                 bound.pct);
  if (kernels.size() > 1) cell += fmt::format(" +{}", kernels.size() - 1);
  return cell;
}

KernelBounds estimate_bounds(const WorkModel& model, double min_bytes, const DevicePeaks& peaks, double median_ms) {
  KernelBounds k;
  k.kernel = model.kernel;
  k.model = model.note;
  if (median_ms <= 0) return k;
  const double seconds = median_ms * 1e-3;
  // Each figure: the time it takes at the peak rate, over the time measured.
  auto pct = [&](double work, double rate) -> std::optional<double> {
    if (work <= 0 || rate <= 0) return std::nullopt;
    return 100.0 * (work / rate) / seconds;
  };
  k.memory_pct = pct(min_bytes, peaks.dram_bytes_per_s);
  k.sm_pct = pct(model.warp_instructions, peaks.warp_issue_per_s);
  k.sfu_pct = pct(model.sfu_ops, peaks.sfu_ops_per_s);
  // A kernel that needs no XU op is at 0% of it, a figure, not an unknown.
  if (!k.sfu_pct && model.warp_instructions > 0) k.sfu_pct = 0.0;
  return k;
}

}  // namespace fp::bench
