// Damaged input as the user sees it: the rate-limited log lines of the decode stage, and
// the counts and first positions in the run statistics.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pipeline/engine/run_stats.hpp"
#include "stages/decode_error_log.hpp"

namespace fp {
namespace {

using namespace std::chrono_literals;

DecodeErrorPosition packet_at(std::int64_t index, std::int64_t pts) {
  return {.packet = index, .pts = pts, .time_base = {1, 90000}, .reason = "Invalid data found when processing input"};
}

TEST(DecodeErrors, CountsKeepTheFirstPositionsAndTheLatest) {
  DecodeErrors errors;
  EXPECT_EQ(errors.summary(), "");
  for (int i = 0; i < 8; ++i) errors.add_packet(packet_at(10 * i, 3600 * i));
  errors.add_frame({.frame = 90, .pts = 324000, .time_base = {1, 90000}, .reason = "decoded with errors concealed"});
  EXPECT_EQ(errors.packets, 8);
  EXPECT_EQ(errors.frames, 1);
  EXPECT_EQ(errors.total(), 9);
  ASSERT_EQ(errors.first.size(), DecodeErrors::kPositionsKept);
  EXPECT_EQ(errors.first[4].packet, 40);
  EXPECT_EQ(errors.last.frame, 90);
  EXPECT_EQ(errors.summary(), "8 damaged packets, 1 frame with concealed errors");
  EXPECT_EQ(errors.first[1].where(), "packet 10 (0.040 s)");
  EXPECT_EQ(errors.last.where(), "frame 90 (3.600 s)");
  EXPECT_EQ(DecodeErrorPosition{.packet = 7}.where(), "packet 7");
}

// The first damage at once with its position; then at most one line per interval with the
// running count; a last count at the end when it moved since.
TEST(DecodeErrorLog, WarnsOnceThenAtMostOncePerIntervalThenAtTheEnd) {
  DecodeErrorLog log("in.ts", 10s);
  const auto t0 = DecodeErrorLog::Clock::time_point{} + 1h;
  DecodeErrors errors;
  EXPECT_FALSE(log.update(errors, t0, false)) << "nothing to say without damage";

  errors.add_packet(packet_at(42, 151200));
  const auto first = log.update(errors, t0, false);
  ASSERT_TRUE(first);
  EXPECT_EQ(*first,
            "in.ts: damaged input at packet 42 (1.680 s): Invalid data found when processing input; skipped "
            "(on_error: skip), further damage is counted");
  EXPECT_FALSE(log.update(errors, t0 + 1s, false)) << "no new damage, no line";

  int lines = 0;
  for (int i = 1; i <= 1000; ++i) {  // a flood of damage over 9.99 s
    errors.add_packet(packet_at(42 + i, 151200 + i));
    if (log.update(errors, t0 + i * 9990us, false)) ++lines;
  }
  EXPECT_EQ(lines, 0) << "within the interval after the first line";
  errors.add_packet(packet_at(2000, 900000));
  const auto periodic = log.update(errors, t0 + 10s, false);
  ASSERT_TRUE(periodic);
  EXPECT_EQ(*periodic, "in.ts: 1002 damaged packets so far, the latest at packet 2000 (10.000 s)");

  errors.add_packet(packet_at(2001, 900100));
  EXPECT_FALSE(log.update(errors, t0 + 11s, false));
  const auto last = log.update(errors, t0 + 12s, true);
  ASSERT_TRUE(last);
  EXPECT_EQ(*last, "in.ts: 1003 damaged packets in all");
  EXPECT_FALSE(log.update(errors, t0 + 13s, true)) << "said once";
}

TEST(DecodeErrorLog, FirstLineSaysHowManyWhenSeveralCameAtOnce) {
  DecodeErrorLog log("in.ts");
  DecodeErrors errors;
  errors.add_packet(packet_at(3, 10800));
  errors.add_frame({.frame = 2, .pts = 7200, .time_base = {1, 90000}, .reason = "decoded with errors concealed"});
  const auto line = log.update(errors, DecodeErrorLog::Clock::now(), true);
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("at packet 3 (0.120 s)"), std::string::npos) << *line;
  EXPECT_NE(line->find("(1 damaged packet, 1 frame with concealed errors so far)"), std::string::npos) << *line;
}

TEST(RunStats, DecodeErrorsInJsonAndSummary) {
  RunStats stats;
  stats.device = "cpu";
  StageTiming source{.id = "input", .type = "decode", .decoder = "h264 (software)", .frames = 90};
  source.decode_errors.add_packet(packet_at(42, 151200));
  source.decode_errors.add_frame(
      {.frame = 44, .pts = 158400, .time_base = {1, 90000}, .reason = "decoded with errors concealed"});
  source.decode_errors.add_packet({.packet = 50, .reason = "Invalid data found when processing input"});
  StageTiming clean{.id = "other", .type = "decode", .decoder = "testsrc", .frames = 90};
  StageTiming sink{.id = "out", .type = "encode", .encoder = "libx264", .output = "o.mp4", .frames = 90};
  stats.stages = {source, clean, sink};

  const auto doc = nlohmann::json::parse(stats_to_json(stats));
  const auto& errors = doc["stages"][0]["decode_errors"];
  EXPECT_EQ(errors["damaged_packets"], 2);
  EXPECT_EQ(errors["damaged_frames"], 1);
  ASSERT_EQ(errors["first"].size(), 3u);
  EXPECT_EQ(errors["first"][0]["packet"], 42);
  EXPECT_EQ(errors["first"][0]["pts"], 151200);
  EXPECT_DOUBLE_EQ(errors["first"][0]["time"].get<double>(), 1.68);
  EXPECT_EQ(errors["first"][0]["error"], "Invalid data found when processing input");
  EXPECT_FALSE(errors["first"][0].contains("frame"));
  EXPECT_EQ(errors["first"][1]["frame"], 44);
  EXPECT_FALSE(errors["first"][2].contains("time")) << "unknown positions are left out";
  EXPECT_EQ(doc["stages"][1]["decode_errors"]["damaged_packets"], 0) << "every source says, even when clean";
  EXPECT_FALSE(doc["stages"][2].contains("decode_errors")) << "sinks decode nothing";

  const std::string summary = stats_summary(stats);
  EXPECT_NE(summary.find("  input: skipped 2 damaged packets, 1 frame with concealed errors; the first at packet 42 "
                         "(1.680 s): Invalid data found when processing input\n"),
            std::string::npos)
      << summary;
  EXPECT_EQ(summary.find("other: skipped"), std::string::npos) << summary;
}

}  // namespace
}  // namespace fp
