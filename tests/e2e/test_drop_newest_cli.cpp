// `drop: newest` under real overload: a paced input far faster than the graph drops the
// frames that arrive while the source's queue is full, and keeps those already queued, so the
// frames that go through are the older ones. The overload does not depend on the machine:
// CPU nlmeans with the largest window (51x51 search, 15x15 patch) on 320x240 is about 2e8
// patch-distance updates a frame, at least 20 ms even at 1e10 a second (16 fast cores); the
// input comes every 2.5 ms (400 fps). Measured here (2 cores): ~345 ms a frame, 2.6 s in all.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/e2e/cli_runner.hpp"

namespace fp::test {
namespace {

constexpr int kInputFrames = 200;  // half a second of input
constexpr int kQueueDepth = 4;     // a source's queue (README: "each source's queue holds a few frames (4)")

// The search window: 51 in a normal build. Sanitizer builds (FRAMEPIPE_TEST_TIME_SCALE 2 for
// ASan, 4 for TSan) run nlmeans 20x to 80x slower, so a smaller window (the cost grows with
// its area) keeps each frame far above the 2.5 ms interval without making the test slow.
int overloading_search() {
  const double scale = time_bound(1.0);
  return scale >= 4 ? 9 : scale >= 2 ? 15 : 51;
}

TEST(DropNewestCli, OverloadKeepsTheOlderFramesAndCountsTheDropped) {
  TempDir dir("drop-newest");
  std::ofstream(dir / "p.yaml") << "device: cpu\n"
                                   "realtime: true\n"
                                   "drop: newest\n"
                                   "input: testsrc://320x240@400?noise=10&frames="
                                << kInputFrames
                                << "\n"
                                   "stages:\n"
                                   "  - {id: denoise, type: nlmeans, patch: 15, search: "
                                << overloading_search()
                                << "}\n"
                                   "  - {id: hist, type: luma_histogram, output: hist.jsonl}\n";
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q", "--stats-json", "stats.json"}, dir.path(),
                                                 static_cast<int>(time_bound(60)));
  ASSERT_EQ(result.exit_code, 0) << result.output;

  std::ifstream in(dir / "stats.json");
  const auto stats = nlohmann::json::parse(in);
  const auto& input = stats["stages"][0];
  ASSERT_EQ(input["id"], "input") << stats.dump(2);
  EXPECT_EQ(input["drop"], "newest");
  EXPECT_EQ(input["frames"], kInputFrames) << "every frame was decoded; the drops came after";
  const long long dropped = input["frames_dropped"].get<long long>();
  EXPECT_GT(dropped, 0) << stats.dump(2);
  EXPECT_EQ(stats["frames_dropped"], dropped);
  EXPECT_EQ(stats["frames"].get<long long>() + dropped, kInputFrames) << "each frame either went through or was counted";

  // The histogram row of each frame that went through, by its source sequence number. While
  // the graph works on frame 0 (at least 8 frame intervals), frames 1..4 fill the queue and
  // the next ones are dropped: the queued (older) frames go through next, in order. `drop:
  // oldest` would have kept the newest instead (measured: 0, 145, 196, 197, 198, 199).
  std::vector<long long> kept;
  std::ifstream rows(dir / "hist.jsonl");
  for (std::string line; std::getline(rows, line);) kept.push_back(nlohmann::json::parse(line)["frame"].get<long long>());
  ASSERT_EQ(static_cast<long long>(kept.size()), stats["frames"].get<long long>());
  ASSERT_GT(kept.size(), static_cast<std::size_t>(kQueueDepth)) << result.output;
  for (int i = 0; i < kQueueDepth; ++i) EXPECT_EQ(kept[i], i) << "frame kept at position " << i;
  for (std::size_t i = 1; i < kept.size(); ++i) EXPECT_GT(kept[i], kept[i - 1]) << "frames out of order at " << i;
}

}  // namespace
}  // namespace fp::test
