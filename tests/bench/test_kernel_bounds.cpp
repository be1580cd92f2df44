// The estimate (`--bounds estimate`) and the JSON and table cell every case gets.
#include <gtest/gtest.h>

#include "tools/framepipe/bench/kernel_bounds.hpp"

namespace fp::bench {
namespace {

// An H100 SXM: 132 SMs at 1.98 GHz, HBM3 at 2 x 2.619 GHz x 640 bytes.
DevicePeaks h100() {
  DevicePeaks p;
  p.dram_bytes_per_s = 2 * 2.619e9 * 640;
  p.warp_issue_per_s = 132 * 4 * 1.98e9;
  p.sfu_ops_per_s = 132 * 16 * 1.98e9;
  return p;
}

TEST(Estimate, EachFigureIsItsTimeAtPeakOverTheMedian) {
  // 1 ms of issue, 0.5 ms of XU, 0.25 ms of DRAM, measured at 2 ms.
  const auto p = h100();
  const WorkModel model{"k", p.warp_issue_per_s * 1e-3, p.sfu_ops_per_s * 0.5e-3, "counted"};
  const auto k = estimate_bounds(model, p.dram_bytes_per_s * 0.25e-3, p, 2.0);
  EXPECT_NEAR(*k.sm_pct, 50, 1e-9);
  EXPECT_NEAR(*k.sfu_pct, 25, 1e-9);
  EXPECT_NEAR(*k.memory_pct, 12.5, 1e-9);
  EXPECT_EQ(limiting(k).name, "sm");
  EXPECT_EQ(k.kernel, "k");
  EXPECT_EQ(k.model, "counted");
}

TEST(Estimate, NlmeansModelMatchesItsNcuProfile) {
  // bench_cases.cpp's nlmeans model at 1080p, p7/s21, at the bench's 0.640 ms median: ncu
  // measured 76% SM on that commit (at base clocks; the model divides by the boost clock).
  const double offsets = 1920.0 * 1080 * 441;
  const auto k = estimate_bounds({"nlmeans_kernel", offsets * 0.555, offsets, ""}, 2 * 1920.0 * 1080, h100(), 0.640);
  EXPECT_NEAR(*k.sm_pct, 76, 3);
  EXPECT_LT(*k.memory_pct, 1);
  EXPECT_GT(*k.sfu_pct, 20);
  EXPECT_LT(*k.sfu_pct, 50);
}

TEST(Estimate, BytesOnlyModelLeavesTheSmUnknown) {
  const auto p = h100();
  const auto k = estimate_bounds({"copy", 0, 0, "bytes only"}, p.dram_bytes_per_s * 1e-3, p, 1.25);
  EXPECT_NEAR(*k.memory_pct, 80, 1e-9);
  EXPECT_FALSE(k.sm_pct.has_value());
  EXPECT_FALSE(k.sfu_pct.has_value());
  EXPECT_EQ(limiting(k).name, "memory");
}

TEST(Estimate, NoMedianNoFigures) {
  const auto k = estimate_bounds({"k", 1e9, 1e9, ""}, 1e9, h100(), 0);
  EXPECT_TRUE(limiting(k).name.empty());
}

TEST(BoundsJson, EstimateCaseKeys) {
  const auto p = h100();
  const auto k = estimate_bounds({"nlmeans_kernel", p.warp_issue_per_s * 1e-3, 0, "441 offsets"},
                                 p.dram_bytes_per_s * 1e-4, p, 2.0);
  nlohmann::ordered_json j;
  add_bounds_json(j, {k}, true);
  EXPECT_EQ(j["bounds_source"], "estimate");
  ASSERT_EQ(j["bounds"].size(), 1u);
  const auto& entry = j["bounds"][0];
  std::vector<std::string> keys;
  for (const auto& [key, value] : entry.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"kernel", "sm_pct", "memory_pct", "sfu_pct", "bound", "bound_pct",
                                            "model"}));
  EXPECT_EQ(entry["kernel"], "nlmeans_kernel");
  EXPECT_EQ(entry["bound"], "sm");
  EXPECT_DOUBLE_EQ(entry["bound_pct"].get<double>(), 50);
  EXPECT_DOUBLE_EQ(entry["sfu_pct"].get<double>(), 0);  // modelled: needs no XU op
  EXPECT_EQ(entry["model"], "441 offsets");
}

TEST(BoundsJson, NcuCaseKeysAndUnknowns) {
  KernelBounds k;
  k.kernel = "reduce_kernel<float>";
  k.sm_pct = 14.544;
  k.memory_pct = 16.74;
  k.dram_pct = 16.74;
  k.duration_us = 7.46;
  nlohmann::ordered_json j;
  add_bounds_json(j, {k, k}, false);
  EXPECT_EQ(j["bounds_source"], "ncu");
  ASSERT_EQ(j["bounds"].size(), 2u);
  const auto& entry = j["bounds"][0];
  EXPECT_DOUBLE_EQ(entry["sm_pct"].get<double>(), 14.54);  // two decimals, as ncu prints
  EXPECT_TRUE(entry["sfu_pct"].is_null());
  EXPECT_EQ(entry["bound"], "memory");
  EXPECT_TRUE(entry["l1_pct"].is_null());
  EXPECT_DOUBLE_EQ(entry["ncu_duration_us"].get<double>(), 7.46);
  EXPECT_FALSE(entry.contains("model"));
}

TEST(BoundCell, LongestKernelAndHowManyMore) {
  KernelBounds small;
  small.sm_pct = 4;
  small.memory_pct = 5;
  small.duration_us = 6.4;
  KernelBounds big;
  big.sm_pct = 68.2;
  big.memory_pct = 12;
  big.duration_us = 26.6;
  EXPECT_EQ(bound_cell({small, big, small}, false), "SM 68% +2");
  EXPECT_EQ(bound_cell({small}, false), "mem 5%");
  KernelBounds sfu;
  sfu.sfu_pct = 91;
  sfu.sm_pct = 40;
  EXPECT_EQ(bound_cell({sfu}, true), "~SFU 91%");
  EXPECT_EQ(bound_cell({}, true), "-");
  EXPECT_EQ(bound_cell({KernelBounds{}}, true), "-");
}

}  // namespace
}  // namespace fp::bench
