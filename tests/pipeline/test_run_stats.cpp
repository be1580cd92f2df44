#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pipeline/engine/run_stats.hpp"

namespace fp {
namespace {

TEST(LatencyHistogram, PercentilesAreNearestRankWithinOnePercent) {
  LatencyHistogram empty;
  EXPECT_EQ(empty.percentile(50), 0.0);
  EXPECT_EQ(empty.max(), 0.0);
  LatencyHistogram one;
  one.add(7);
  EXPECT_EQ(one.percentile(99), 7.0);  // clamped to [min, max]: exact
  LatencyHistogram five;
  for (double v : {5, 1, 4, 2, 3}) five.add(v);
  EXPECT_NEAR(five.percentile(50), 3.0, 0.03);
  EXPECT_EQ(five.percentile(0), 1.0);
  EXPECT_EQ(five.percentile(100), 5.0);
  EXPECT_EQ(five.min(), 1.0);
  EXPECT_EQ(five.max(), 5.0);
  LatencyHistogram hundred;
  for (int i = 1; i <= 100; ++i) hundred.add(i);
  EXPECT_NEAR(hundred.percentile(99), 99.0, 0.99);
  EXPECT_NEAR(hundred.percentile(95), 95.0, 0.95);
  EXPECT_EQ(hundred.count(), 100);
}

TEST(LatencyHistogram, SpansMicrosecondsToHoursAndMerges) {
  LatencyHistogram a;
  LatencyHistogram b;
  for (int i = 0; i < 1000; ++i) a.add(0.05);     // 50 µs
  for (int i = 0; i < 1000; ++i) b.add(3.6e6);    // an hour
  a.merge(b);
  EXPECT_EQ(a.count(), 2000);
  EXPECT_NEAR(a.percentile(25), 0.05, 0.0005);
  EXPECT_NEAR(a.percentile(75), 3.6e6, 3.6e4);
  EXPECT_EQ(a.min(), 0.05);
  EXPECT_EQ(a.max(), 3.6e6);
  a.add(0.0);  // below the lowest bucket: counted, and the minimum
  EXPECT_EQ(a.percentile(0), 0.0);
}

TEST(LatencyHistogram, SumIsExactAndMerges) {
  LatencyHistogram a;
  EXPECT_EQ(a.sum(), 0.0);
  for (double v : {1.5, 2.25, 40.0}) a.add(v);
  EXPECT_DOUBLE_EQ(a.sum(), 43.75);
  LatencyHistogram b;
  b.add(6.25);
  a.merge(b);
  EXPECT_DOUBLE_EQ(a.sum(), 50.0);
  EXPECT_EQ(a.count(), 4);
}

// What a Prometheus histogram's cumulative buckets need: everything <= the bound counted,
// nothing more than 1% above it, exact at the ends, never decreasing.
TEST(LatencyHistogram, CountAtMostIsCumulativeWithinOnePercent) {
  LatencyHistogram empty;
  EXPECT_EQ(empty.count_at_most(100), 0);
  LatencyHistogram h;
  for (int i = 1; i <= 1000; ++i) h.add(i * 0.1);  // 0.1 .. 100 ms
  EXPECT_EQ(h.count_at_most(0.05), 0);    // below the minimum
  EXPECT_EQ(h.count_at_most(100), 1000);  // the maximum: all
  EXPECT_EQ(h.count_at_most(1e9), 1000);
  for (double bound : {0.1, 0.25, 1.0, 5.0, 10.0, 33.3, 50.0, 99.0}) {
    std::int64_t at_most = 0;
    std::int64_t within_one_percent = 0;
    for (int i = 1; i <= 1000; ++i) {
      if (i * 0.1 <= bound) ++at_most;
      if (i * 0.1 <= bound * 1.01) ++within_one_percent;
    }
    EXPECT_GE(h.count_at_most(bound), at_most) << bound;
    EXPECT_LE(h.count_at_most(bound), within_one_percent) << bound;
  }
  std::int64_t previous = 0;
  for (double bound = 0.01; bound < 200; bound *= 1.003) {
    EXPECT_GE(h.count_at_most(bound), previous) << bound;
    previous = h.count_at_most(bound);
  }
  LatencyHistogram tiny;  // values under the lowest bucket (1 µs) are counted by any bound above it
  tiny.add(0.0);
  tiny.add(0.0005);
  tiny.add(20);
  EXPECT_EQ(tiny.count_at_most(0.001), 2);
  EXPECT_EQ(tiny.count_at_most(10), 2);
}

TEST(RunStats, JsonHasFramesFpsTimesAndCodecs) {
  RunStats stats;
  stats.pipeline = "p.yaml";
  stats.device = "cpu";
  stats.frames = 10;
  stats.wall_seconds = 2.0;
  for (double v : {1, 2, 3}) stats.latency_ms.add(v);
  StageTiming source{.id = "input", .type = "decode", .decoder = "h264 (software)", .frames = 10, .total_ms = 5};
  source.enqueue_ms = 3;  // 0.3 ms a frame uploading
  StageTiming sink{.id = "out", .type = "encode", .encoder = "libx264", .output = "o.mp4", .frames = 10, .total_ms = 20};
  stats.stages = {source, sink};
  stats.outputs = {"o.mp4"};
  stats.enqueue_ms = 0.5;
  stats.wait_ms = 12;
  stats.first_frame_seconds = 0.25;
  const auto doc = nlohmann::json::parse(stats_to_json(stats));
  EXPECT_EQ(doc["frames"], 10);
  EXPECT_DOUBLE_EQ(doc["fps"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(doc["wall_seconds"].get<double>(), 2.0);
  EXPECT_EQ(doc["stages"][0]["decoder"], "h264 (software)");
  EXPECT_EQ(doc["stages"][1]["encoder"], "libx264");
  EXPECT_DOUBLE_EQ(doc["stages"][1]["mean_ms"].get<double>(), 2.0);
  EXPECT_NEAR(doc["latency_ms"]["p50"].get<double>(), 2.0, 0.02);
  EXPECT_EQ(doc["latency_ms"]["max"].get<double>(), 3.0);
  EXPECT_EQ(doc["latency_ms"]["frames"], 3);
  EXPECT_EQ(doc["outputs"][0], "o.mp4");
  EXPECT_DOUBLE_EQ(doc["graph_thread"]["enqueue_us_per_frame"].get<double>(), 50.0);
  EXPECT_DOUBLE_EQ(doc["graph_thread"]["wait_us_per_frame"].get<double>(), 1200.0);
  EXPECT_DOUBLE_EQ(doc["stages"][0]["enqueue_us_per_frame"].get<double>(), 300.0);
  EXPECT_FALSE(doc["stages"][1].contains("enqueue_us_per_frame")) << "a sink enqueues nothing";
  EXPECT_DOUBLE_EQ(doc["first_frame_seconds"].get<double>(), 0.25);
  EXPECT_NE(stats_summary(stats).find("libx264 -> o.mp4"), std::string::npos);
}

TEST(LatencyHistogram, SinceGivesTheRecentWindowAlone) {
  LatencyHistogram h;
  for (int i = 0; i < 1000; ++i) h.add(100.0);  // an old burst of slow frames
  const LatencyHistogram earlier = h;
  EXPECT_EQ(h.since(earlier).count(), 0);
  EXPECT_EQ(h.since(earlier).percentile(99), 0.0);
  for (int i = 1; i <= 100; ++i) h.add(i * 0.1);  // then 0.1 .. 10 ms
  const LatencyHistogram recent = h.since(earlier);
  EXPECT_EQ(recent.count(), 100);
  EXPECT_NEAR(recent.sum(), 505.0, 1e-6);
  EXPECT_NEAR(recent.percentile(50), 5.0, 0.05);   // the old 100 ms frames are not in it
  EXPECT_NEAR(recent.percentile(99), 9.9, 0.1);
  EXPECT_NEAR(recent.max(), 10.0, 0.1);
  EXPECT_NEAR(recent.min(), 0.1, 0.001);
  EXPECT_GT(h.percentile(50), 99.0);  // the whole history still has them
}

// A finished stream's stats stay until a run of thousands of files ends: a histogram holds
// the buckets its values span (and margins), not all 2,300 from 1 µs to 10^7 ms.
TEST(LatencyHistogram, HoldsOnlyTheBucketsItsValuesSpan) {
  EXPECT_EQ(LatencyHistogram().buckets_held(), 0u);
  LatencyHistogram h;
  for (int i = 0; i < 10000; ++i) h.add(20.0 + (i % 100) * 0.8);  // 20 .. 99.2 ms: 161 buckets
  EXPECT_LE(h.buckets_held(), 161u + 4 * 32) << "what it holds beyond its values: margins of 32";
  EXPECT_NEAR(h.percentile(50), 59.6, 0.6);
  LatencyHistogram copy;
  copy.merge(h);
  EXPECT_LE(copy.buckets_held(), h.buckets_held() + 2 * 32);
  EXPECT_EQ(copy.count(), 10000);
  EXPECT_EQ(h.since(LatencyHistogram()).buckets_held(), 162u) << "a window holds its own span alone";
  h.add(3.6e6);  // an hour, then a microsecond: the range grows both ways
  h.add(0.001);
  EXPECT_EQ(h.percentile(100), 3.6e6);
  EXPECT_EQ(h.percentile(0), 0.001);
  EXPECT_NEAR(h.percentile(50), 59.6, 0.6);
  EXPECT_EQ(h.count_at_most(0.002), 1);
  EXPECT_EQ(h.count_at_most(100), 10001);
}

}  // namespace
}  // namespace fp

namespace fp {
namespace {

TEST(RunStatsJson, HostSideIsReportedPerFrame) {
  RunStats stats;
  stats.frames = 4;
  stats.host_cpu_ms = 10;
  stats.bytes_uploaded = 4 * 1000;
  stats.bytes_downloaded = 4 * 250;
  const auto doc = nlohmann::json::parse(stats_to_json(stats));
  const auto& host = doc.at("host");
  EXPECT_DOUBLE_EQ(host.at("cpu_ms").get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(host.at("cpu_ms_per_frame").get<double>(), 2.5);
  EXPECT_EQ(host.at("bytes_uploaded").get<std::int64_t>(), 4000);
  EXPECT_EQ(host.at("bytes_downloaded").get<std::int64_t>(), 1000);
  EXPECT_DOUBLE_EQ(host.at("upload_bytes_per_frame").get<double>(), 1000.0);
  EXPECT_DOUBLE_EQ(host.at("download_bytes_per_frame").get<double>(), 250.0);
  EXPECT_NE(stats_summary(stats).find("PCIe 0.00 MB up"), std::string::npos) << stats_summary(stats);
}

}  // namespace
}  // namespace fp
