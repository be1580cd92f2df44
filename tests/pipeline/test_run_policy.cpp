// The policy `framepipe run` gives the stream manager (pipeline/streams/manager.hpp): stream
// i of the definition is spec i (DefinitionStreams), live inputs take places beyond the cap,
// files wait in order, no restarts, outputs where the pipeline says, and with
// OnFailure::StopAll (run --fail-fast) the first failure stops the rest. Real runs on testsrc, on the CPU.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "pipeline/config/loader.hpp"
#include "pipeline/streams/definition_streams.hpp"
#include "pipeline/streams/manager.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/time_bound.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;
using test::eventually;
using test::TempDir;
using test::time_bound;

class RunPolicyTest : public ::testing::Test {
 protected:
  RunPolicyTest() : dir_("run-policy") {}

  // A manager as `framepipe run` makes one, for the pipeline `yaml` (written to p.yaml;
  // OUT/ in it is the test's folder).
  std::unique_ptr<StreamManager> manager_for(std::string yaml, std::size_t cap, bool fail_fast = false) {
    for (auto at = yaml.find("OUT/"); at != std::string::npos; at = yaml.find("OUT/"))
      yaml.replace(at, 3, dir_.path().string());
    std::ofstream(dir_ / "p.yaml") << yaml;
    streams_ = std::make_shared<const DefinitionStreams>(load_pipeline(dir_ / "p.yaml"), -1);
    StreamManagerOptions options;
    options.planner = streams_;
    options.max_streams = cap;
    options.run.realtime = true;
    options.policy = StreamPolicy::batch(fail_fast);  // looked at by the test, as run's loop does
    return std::make_unique<StreamManager>(std::move(options));
  }

  void put_all(StreamManager& manager) const {
    std::vector<StreamChange> changes;
    for (auto& spec : streams_->specs()) changes.push_back({.spec = spec});
    for (const auto& result : manager.apply(changes))
      ASSERT_NE(result.outcome, StreamChangeResult::Outcome::Refused) << result.error;
  }

  static StreamState state_of(const StreamManager& manager, const std::string& name) {
    const auto status = manager.get(name);
    return status ? status->state : StreamState::Waiting;
  }

  TempDir dir_;
  std::shared_ptr<const DefinitionStreams> streams_;
};

TEST_F(RunPolicyTest, LiveInputsTakePlacesBeyondTheCapAndFilesRunOneAtATimeInOrder) {
  const auto manager = manager_for("inputs:\n"
                                   "  - {uri: 'testsrc://64x48@30?frames=0', name: live1}\n"
                                   "  - {uri: 'testsrc://64x48@30?frames=12', name: file1}\n"
                                   "  - {uri: 'testsrc://64x48@30?frames=12', name: file2}\n"
                                   "  - {uri: 'testsrc://64x48@30?frames=0', name: live2}\n"
                                   "  - {uri: 'testsrc://64x48@30?frames=12', name: file3}\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: 'OUT/{stream}.mkv'}\n",
                                   3);  // as run's default: a place for each live stream, and one
  put_all(*manager);
  // Both live streams run, and take their places first whatever their order; the files take
  // the one place left in turn: none starts before the one ahead of it has finished.
  EXPECT_NE(state_of(*manager, "live1"), StreamState::Waiting);
  EXPECT_NE(state_of(*manager, "live2"), StreamState::Waiting);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(30));
  while (state_of(*manager, "file3") != StreamState::Finished && std::chrono::steady_clock::now() < deadline) {
    manager->look();
    const auto file1 = state_of(*manager, "file1");
    const auto file2 = state_of(*manager, "file2");
    const auto file3 = state_of(*manager, "file3");
    if (file2 != StreamState::Waiting) {
      EXPECT_EQ(file1, StreamState::Finished) << "file2 started before file1 ended";
    }
    if (file3 != StreamState::Waiting) {
      EXPECT_EQ(file2, StreamState::Finished) << "file3 started before file2 ended";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(state_of(*manager, "file3"), StreamState::Finished);
  EXPECT_EQ(manager->info().max_running, 3u);  // two live streams and one file
  EXPECT_FALSE(manager->settled());            // the live streams go on
  EXPECT_TRUE(manager->drain(std::chrono::milliseconds(static_cast<int>(1000 * time_bound(20)))));
  EXPECT_TRUE(manager->settled());
  // Written where the pipeline says (a run's outputs are not moved beside earlier files).
  for (const char* name : {"live1", "file1", "file2", "live2", "file3"})
    EXPECT_TRUE(fs::exists(dir_ / (std::string(name) + ".mkv"))) << name;
}

TEST_F(RunPolicyTest, TheFirstFailureStopsTheOthersAndTheWaitingNeverStart) {
  std::ofstream(dir_ / "broken.mp4") << "not a video";
  const auto manager = manager_for("inputs:\n"
                                   "  - {uri: 'testsrc://64x48@30?frames=0', name: live}\n"
                                   "  - {uri: 'OUT/broken.mp4', name: broken}\n"
                                   "  - {uri: 'testsrc://64x48@30?frames=30', name: later}\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: 'OUT/{stream}.mkv'}\n",
                                   2, /*fail_fast=*/true);
  put_all(*manager);
  ASSERT_TRUE(eventually([&] { manager->look(); return manager->settled(); }, 20));
  EXPECT_EQ(state_of(*manager, "broken"), StreamState::Failed);
  EXPECT_EQ(state_of(*manager, "later"), StreamState::Waiting) << "a waiting stream started after the failure";
  const auto live = manager->get("live");
  ASSERT_TRUE(live);
  EXPECT_EQ(live->state, StreamState::Finished);  // stopped, its output finalized
  EXPECT_TRUE(live->stats.interrupted);
  // The failure as run_pipeline threw it, for a one-stream run to report as its own.
  const std::exception_ptr failure = manager->failure("broken");
  ASSERT_TRUE(failure);
  try {
    std::rethrow_exception(failure);
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("broken.mp4"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(manager->failure("live"));
}

}  // namespace
}  // namespace fp
