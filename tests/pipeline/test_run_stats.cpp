#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pipeline/run_stats.hpp"

namespace fp {
namespace {

TEST(RunStats, PercentileIsNearestRank) {
  EXPECT_EQ(percentile({}, 50), 0.0);
  EXPECT_EQ(percentile({7}, 99), 7.0);
  EXPECT_EQ(percentile({5, 1, 4, 2, 3}, 50), 3.0);
  EXPECT_EQ(percentile({5, 1, 4, 2, 3}, 0), 1.0);
  EXPECT_EQ(percentile({5, 1, 4, 2, 3}, 100), 5.0);
  std::vector<double> hundred;
  for (int i = 1; i <= 100; ++i) hundred.push_back(i);
  EXPECT_EQ(percentile(hundred, 99), 99.0);
}

TEST(RunStats, JsonHasFramesFpsTimesAndCodecs) {
  RunStats stats;
  stats.pipeline = "p.yaml";
  stats.device = "cpu";
  stats.frames = 10;
  stats.wall_seconds = 2.0;
  stats.latency_ms = {1, 2, 3};
  StageTiming source{.id = "input", .type = "decode", .decoder = "h264 (software)", .frames = 10, .total_ms = 5};
  StageTiming sink{.id = "out", .type = "encode", .encoder = "libx264", .output = "o.mp4", .frames = 10, .total_ms = 20};
  stats.stages = {source, sink};
  stats.outputs = {"o.mp4"};
  const auto doc = nlohmann::json::parse(stats_to_json(stats));
  EXPECT_EQ(doc["frames"], 10);
  EXPECT_DOUBLE_EQ(doc["fps"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(doc["wall_seconds"].get<double>(), 2.0);
  EXPECT_EQ(doc["stages"][0]["decoder"], "h264 (software)");
  EXPECT_EQ(doc["stages"][1]["encoder"], "libx264");
  EXPECT_DOUBLE_EQ(doc["stages"][1]["mean_ms"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(doc["latency_ms"]["p50"].get<double>(), 2.0);
  EXPECT_EQ(doc["outputs"][0], "o.mp4");
  EXPECT_NE(stats_summary(stats).find("libx264 -> o.mp4"), std::string::npos);
}

}  // namespace
}  // namespace fp
