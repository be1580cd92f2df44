// The streams of `framepipe serve`, on real runs (testsrc at its frame rate, on the CPU):
// created, replaced and removed one at a time without touching the others; a retried PUT
// that changes nothing; no run truncating an earlier one's files; the state file written
// before a change is made; their states
// (running, finished with its outputs playable, failed with a masked error); the cap
// (live inputs refused beyond it, files waiting their turn); the state file a new manager
// restores; drain.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <map>
#include <set>
#include <thread>

#include "pipeline/streams/manager.hpp"
#include "pipeline/stream_spec/state_file.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/e2e/fifo_waits.hpp"
#include "tests/e2e/video_size.hpp"
#include "tests/live/rtsp_server.hpp"
#include "tests/time_bound.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::TempDir;
using test::eventually;
using test::time_bound;

constexpr const char* kTemplate = R"(input: testsrc://64x48@30?frames=30
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mp4', preset: ultrafast}
)";
constexpr const char* kEndless = "testsrc://64x48@30?frames=0&noise=5";

class StreamManagerTest : public ::testing::Test {
 protected:
  StreamManagerTest() : dir_("stream-manager") {
    fs::create_directories(dir_ / "outputs");
    std::ofstream(dir_ / "smooth.yaml") << kTemplate;
    options_.pipelines = {{"smooth", dir_ / "smooth.yaml"}};
    options_.roots.output_root = dir_ / "outputs";
    options_.max_streams = 8;
    options_.run.realtime = true;  // testsrc at 30 fps, as a camera sends
    options_.state_file = dir_ / "state.json";
  }

  static StreamSpec spec(std::string name, std::string uri = kEndless) {
    return StreamSpec{.name = std::move(name), .pipeline = "smooth", .uri = std::move(uri), .sets = {}, .decode = {}};
  }

  static StreamState state_of(const StreamManager& manager, const std::string& name) {
    const auto status = manager.get(name);
    return status ? status->state : StreamState::Waiting;
  }

  static bool reaches(const StreamManager& manager, const std::string& name, StreamState state, double seconds = 10) {
    return eventually([&] { return manager.get(name) && manager.get(name)->state == state; }, seconds);
  }

  static int rejection(StreamManager& manager, const StreamSpec& s, std::string* message = nullptr) {
    try {
      manager.put(s);
      return 0;
    } catch (const StreamRejected& e) {
      if (message) *message = e.what();
      return e.status();
    }
  }

  fs::path output(const std::string& name) const { return dir_ / "outputs" / (name + ".mp4"); }

  TempDir dir_;
  StreamManagerOptions options_;
};

// A stream's reconnects are its inputs': a network output that found its receiver again is
// the receiver's gap, not the stream's (the API's `reconnects` and the metric say the same).
TEST(StreamReconnects, AreTheInputsOnly) {
  RunStats stats;
  StageTiming input;
  input.id = "input";
  input.type = "decode";
  input.reconnect = ReconnectStats{};
  input.reconnect->reconnects = 2;
  StageTiming output;
  output.id = "out";
  output.type = "encode";
  output.reconnect = ReconnectStats{};
  output.reconnect->reconnects = 5;
  stats.stages = {input, output};
  EXPECT_EQ(input_reconnects(stats), 2);
}

TEST_F(StreamManagerTest, CreateReplaceListAndRemove) {
  StreamManager manager(options_);
  EXPECT_EQ(manager.pipelines(), std::vector<std::string>{"smooth"});
  EXPECT_EQ(manager.put(spec("cam1")), StreamManager::PutOutcome::Created);
  EXPECT_EQ(manager.put(spec("cam2")), StreamManager::PutOutcome::Created);
  ASSERT_TRUE(reaches(manager, "cam1", StreamState::Running));
  ASSERT_TRUE(reaches(manager, "cam2", StreamState::Running));
  const auto listed = manager.list();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].name, "cam1");
  EXPECT_EQ(listed[1].name, "cam2");
  EXPECT_EQ(listed[0].uri, kEndless);
  EXPECT_EQ(listed[0].outputs, std::vector<std::string>{fs::weakly_canonical(output("cam1")).string()});
  EXPECT_TRUE(eventually([&] { return manager.get("cam1")->fps > 20; }, 5)) << manager.get("cam1")->fps;

  // Replaced: cam1 restarts with the new spec (its first run's output finalized and kept,
  // the second writing beside it), cam2 goes on.
  const std::int64_t cam2_before = manager.get("cam2")->frames;
  StreamSpec bigger = spec("cam1", "testsrc://80x48@30?frames=0");
  EXPECT_EQ(manager.put(bigger), StreamManager::PutOutcome::Replaced);
  EXPECT_EQ(manager.get("cam1")->frames, 0);
  EXPECT_EQ(manager.get("cam1")->uri, bigger.uri);
  EXPECT_EQ(manager.get("cam1")->outputs, std::vector<std::string>{fs::weakly_canonical(output("cam1~1")).string()});
  ASSERT_TRUE(reaches(manager, "cam1", StreamState::Running));
  // An MP4 opens only once finalized (its index is written last): the first run's is, and
  // it is of the first spec's size.
  EXPECT_TRUE(eventually([&] { return test::playable_frames(output("cam1")) > 0; }, 10)) << "the replaced run was not finalized";
  EXPECT_EQ(test::video_size(output("cam1")), std::make_pair(64, 48));
  EXPECT_TRUE(eventually([&] { return manager.get("cam2")->frames > cam2_before + 5; }, 5));
  EXPECT_EQ(manager.get("cam2")->state, StreamState::Running);

  ASSERT_TRUE(eventually([&] { return manager.get("cam1")->frames > 5; }, 10));
  // Removed: shown as draining until its output is finalized, then gone (that remove() does
  // not wait for it: RemoveReturnsWhileTheRunStillFinalizes).
  EXPECT_TRUE(manager.remove("cam1"));
  EXPECT_FALSE(manager.remove("nope"));
  ASSERT_TRUE(eventually([&] { return !manager.get("cam1"); }, 10));
  EXPECT_GT(test::playable_frames(output("cam1~1")), 0);
  EXPECT_EQ(test::video_size(output("cam1~1")), std::make_pair(80, 48)) << "the replacing run did not run the new spec";
  EXPECT_EQ(manager.list().size(), 1u);
  EXPECT_EQ(manager.get("cam2")->dropped, 0);
}

// remove() answers at once: the run stops and finalizes on its own thread, shown as draining
// meanwhile. Here it cannot finish at all (its output is a FIFO nobody reads yet, so its
// open blocks), and remove() still returns; the stream goes once a reader lets it end.
TEST_F(StreamManagerTest, RemoveReturnsWhileTheRunStillFinalizes) {
  const fs::path fifo = output("stuck");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  StreamManager manager(options_);
  manager.put(spec("stuck"));
  ASSERT_TRUE(eventually(test::a_thread_waits_on_a_fifo, 10)) << "the stream never reached its output's open";
  auto removal = std::async(std::launch::async, [&] { return manager.remove("stuck"); });
  const bool returned = removal.wait_for(std::chrono::duration<double>(time_bound(10))) == std::future_status::ready;
  // Looked at before the reader comes: once it opens the FIFO, the run may end at once.
  decltype(manager.get("stuck")) shown;
  if (returned) shown = manager.get("stuck");
  test::FifoReader reader(fifo);  // lets the run end either way (a waiting remove() too)
  ASSERT_TRUE(returned) << "remove() waited for the run to end";
  EXPECT_TRUE(removal.get());
  ASSERT_TRUE(shown) << "gone before its run ended";
  EXPECT_EQ(shown->state, StreamState::Draining);
  EXPECT_TRUE(eventually([&] { return !manager.get("stuck"); }, 10)) << "the stream did not end once read";
}

// A removed stream's files are its own until its run has ended: another stream that would
// write one of them meanwhile is refused (409, naming the file), and takes it once the
// removed run is gone. (Here the removed run cannot end until a reader opens its FIFO.)
TEST_F(StreamManagerTest, AStreamStillFinalizingKeepsItsFiles) {
  const fs::path fifo = output("stuck");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  StreamManager manager(options_);
  manager.put(spec("stuck"));
  ASSERT_TRUE(eventually(test::a_thread_waits_on_a_fifo, 10)) << "the stream never reached its output's open";
  ASSERT_TRUE(manager.remove("stuck"));
  ASSERT_EQ(state_of(manager, "stuck"), StreamState::Draining);
  StreamSpec heir = spec("heir");
  heir.sets = {{"out.output", "stuck.mp4"}};
  std::string message;
  EXPECT_EQ(rejection(manager, heir, &message), 409);
  EXPECT_NE(message.find("stuck.mp4"), std::string::npos) << message;
  EXPECT_FALSE(manager.get("heir"));
  {
    test::FifoReader reader(fifo);  // the removed run's open returns; it fails and ends
    ASSERT_TRUE(eventually([&] { return !manager.get("stuck"); }, 10)) << "the removed stream did not end";
  }
  fs::remove(fifo);
  EXPECT_EQ(rejection(manager, heir, &message), 0) << message;
  EXPECT_TRUE(reaches(manager, "heir", StreamState::Running));
}

// A client or a proxy retries a PUT: the same spec again is no change at all (the run goes
// on, its output is not started over). A failed stream is the exception: a PUT of it again
// asks it to start.
TEST_F(StreamManagerTest, ARetriedPutChangesNothing) {
  options_.roots.allow_roots = {dir_.path()};
  StreamManager manager(options_);
  ASSERT_EQ(manager.put(spec("cam1")), StreamManager::PutOutcome::Created);
  ASSERT_TRUE(reaches(manager, "cam1", StreamState::Running));
  ASSERT_TRUE(eventually([&] { return manager.get("cam1")->frames > 10; }, 10));
  const auto before = *manager.get("cam1");
  EXPECT_EQ(manager.put(spec("cam1")), StreamManager::PutOutcome::Unchanged);
  const auto after = *manager.get("cam1");
  EXPECT_EQ(after.since, before.since);
  EXPECT_GE(after.frames, before.frames) << "the run started over";
  EXPECT_EQ(after.outputs, before.outputs);
  EXPECT_EQ(read_stream_state(options_.state_file).streams.size(), 1u);

  // A file that fails stays failed (a live input would be started again by the manager).
  std::ofstream(dir_ / "broken.mp4") << "not a video";
  StreamSpec dead = spec("cam2", (dir_ / "broken.mp4").string());
  manager.put(dead);
  ASSERT_TRUE(reaches(manager, "cam2", StreamState::Failed));
  const auto failed_since = manager.get("cam2")->since;
  EXPECT_EQ(manager.put(dead), StreamManager::PutOutcome::Replaced);  // tried again
  EXPECT_NE(manager.get("cam2")->since, failed_since);
}

// A changed spec restarts the stream, and a restart of the service restores it: neither
// truncates what an earlier run wrote. Each run writes beside the files it finds.
TEST_F(StreamManagerTest, NoRunTruncatesWhatAnEarlierRunWrote) {
  std::int64_t first_frames = 0;
  {
    StreamManager manager(options_);
    manager.put(spec("cam1"));
    ASSERT_TRUE(eventually([&] { return manager.get("cam1")->frames > 20; }, 10));
    first_frames = manager.get("cam1")->frames;
    StreamSpec changed = spec("cam1");
    changed.sets = {{"smooth.radius", "2"}};
    EXPECT_EQ(manager.put(changed), StreamManager::PutOutcome::Replaced);
    EXPECT_EQ(manager.get("cam1")->outputs, std::vector<std::string>{fs::weakly_canonical(output("cam1~1")).string()});
    ASSERT_TRUE(eventually([&] { return manager.get("cam1")->frames > 5; }, 10));
  }
  // The first run's file holds every frame it counted, finalized when it was replaced.
  EXPECT_GE(test::count_frames(output("cam1")), first_frames);
  const auto second_frames = test::count_frames(output("cam1~1"));
  EXPECT_GT(second_frames, 5);
  StreamManager restored(options_);
  EXPECT_EQ(restored.get("cam1")->outputs, std::vector<std::string>{fs::weakly_canonical(output("cam1~2")).string()});
  ASSERT_TRUE(eventually([&] { return restored.get("cam1")->frames > 5; }, 10));
  EXPECT_GE(test::count_frames(output("cam1")), first_frames);
  EXPECT_EQ(test::count_frames(output("cam1~1")), second_frames);
}

// The state file is written before a change is made: when it cannot be (its folder gone,
// a full or read-only disk), the change is refused and nothing changes — the answer, what
// runs and the file agree.
TEST_F(StreamManagerTest, AStateFileThatCannotBeWrittenChangesNothing) {
  fs::create_directories(dir_ / "state");
  options_.state_file = dir_ / "state" / "state.json";
  StreamManager manager(options_);
  manager.put(spec("cam1"));
  ASSERT_TRUE(reaches(manager, "cam1", StreamState::Running));
  fs::remove_all(dir_ / "state");

  std::string message;
  EXPECT_EQ(rejection(manager, spec("cam2"), &message), 500);
  EXPECT_NE(message.find("nothing changed"), std::string::npos) << message;
  EXPECT_NE(message.find("state.json"), std::string::npos) << message;
  EXPECT_FALSE(manager.get("cam2")) << "a stream runs that the state file does not hold";
  try {
    manager.remove("cam1");
    ADD_FAILURE() << "remove() succeeded without saving";
  } catch (const StreamRejected& e) {
    EXPECT_EQ(e.status(), 500) << e.what();
  }
  std::this_thread::sleep_for(300ms);
  ASSERT_TRUE(manager.get("cam1"));
  EXPECT_EQ(manager.get("cam1")->state, StreamState::Running) << "removed in memory though still in the file";

  fs::create_directories(dir_ / "state");
  EXPECT_EQ(manager.put(spec("cam2")), StreamManager::PutOutcome::Created);
  EXPECT_TRUE(manager.remove("cam1"));
  const auto saved = read_stream_state(options_.state_file).streams;
  ASSERT_EQ(saved.size(), 1u);
  EXPECT_EQ(saved[0].spec.name, "cam2");
}

TEST_F(StreamManagerTest, AFileInputFinishesWithItsOutputFinalized) {
  StreamManager manager(options_);
  manager.put(spec("clip", "testsrc://64x48@30?frames=15"));
  ASSERT_TRUE(reaches(manager, "clip", StreamState::Finished));
  const auto status = *manager.get("clip");
  EXPECT_EQ(status.frames, 15);
  EXPECT_TRUE(status.last_error.empty());
  EXPECT_EQ(test::count_frames(output("clip")), 15);  // playable: the index was written
  // ffprobe, where there is one, agrees.
  if (std::system("command -v ffprobe > /dev/null 2>&1") == 0) {
    const auto probe = "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 '" +
                       output("clip").string() + "'";
    FILE* pipe = ::popen(probe.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    char line[64] = {};
    ASSERT_NE(std::fgets(line, sizeof line, pipe), nullptr);
    ::pclose(pipe);
    EXPECT_EQ(std::atoi(line), 15);
  }
}

// A camera that does not answer: listed as reconnecting (the manager starts it again) with
// its error, masked.
TEST_F(StreamManagerTest, AFailedStreamStaysListedWithItsErrorMasked) {
  StreamManager manager(options_);
  StreamSpec s = spec("cam1", "rtsp://admin:hunter2@127.0.0.1:1/live");
  s.decode = {{"reconnect.attempts", "0"}, {"timeout_ms", "500"}};
  manager.put(s);
  ASSERT_TRUE(eventually([&] { return !manager.get("cam1")->last_error.empty(); }, 10));
  const auto status = *manager.get("cam1");
  EXPECT_EQ(status.state, StreamState::Reconnecting);
  EXPECT_EQ(status.last_error.find("hunter2"), std::string::npos) << status.last_error;
  EXPECT_NE(status.last_error.find("rtsp://admin:***@127.0.0.1:1/live"), std::string::npos) << status.last_error;
  EXPECT_EQ(status.uri, "rtsp://admin:***@127.0.0.1:1/live");
}

// Streams coming and going leave a running one alone: it goes on at its frame rate and
// drops nothing. Its rate is compared with its own over as long a quiet time just before, on
// the same machine and build (a sanitizer's, a loaded CI box), not with a fixed fps.
TEST_F(StreamManagerTest, AddingAndRemovingStreamsNeverDisturbsTheOthers) {
  StreamManager manager(options_);
  manager.put(spec("steady"));
  ASSERT_TRUE(reaches(manager, "steady", StreamState::Running));
  const auto rate_since = [&](std::int64_t frames, std::chrono::steady_clock::time_point t) {
    std::this_thread::sleep_for(300ms);  // the last publish (every 100 ms) is in
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
    return static_cast<double>(manager.get("steady")->frames - frames) / seconds;
  };
  const std::int64_t quiet_start = manager.get("steady")->frames;
  const auto quiet_t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(1300ms);  // as long as the churn below: 4 x 0.4 s, less the publish wait
  const double quiet_rate = rate_since(quiet_start, quiet_t0);
  const std::int64_t before = manager.get("steady")->frames;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 4; ++i) {
    const std::string name = "extra" + std::to_string(i % 2);
    manager.put(spec(name));
    ASSERT_TRUE(reaches(manager, name, StreamState::Running)) << name;
    std::this_thread::sleep_for(200ms);
    manager.put(spec(name, "testsrc://96x64@30?frames=0"));  // replaced once
    std::this_thread::sleep_for(200ms);
    ASSERT_TRUE(manager.remove(name));
  }
  ASSERT_TRUE(eventually([&] { return manager.list().size() == 1; }, 10));
  const double churn_rate = rate_since(before, t0);
  const auto steady = *manager.get("steady");
  EXPECT_EQ(steady.state, StreamState::Running);
  EXPECT_EQ(steady.dropped, 0);
  // Paced at 30 fps: it kept its own rate while the others came and went (half of it at
  // least: a churn that stalled it for a third of the time would show).
  EXPECT_GT(quiet_rate, 0.0);
  EXPECT_GT(churn_rate, 0.5 * quiet_rate) << churn_rate << " fps while others came and went, " << quiet_rate
                                          << " fps before";
}

TEST_F(StreamManagerTest, TheStateFileIsPrivateAndANewManagerRestoresIt) {
  {
    StreamManager manager(options_);
    StreamSpec live = spec("cam1", "rtsp://admin:hunter2@127.0.0.1:1/live");
    live.decode = {{"reconnect.attempts", "forever"}, {"reconnect.initial_ms", "100"}, {"reconnect.max_ms", "200"}};
    manager.put(live);
    // Saved before put() returns.
    ASSERT_EQ(read_stream_state(options_.state_file).streams.size(), 1u);
    EXPECT_EQ(read_stream_state(options_.state_file).streams[0].spec.name, "cam1");
    manager.put(spec("clip", "testsrc://64x48@30?frames=10"));
    manager.put(spec("gone"));
    manager.remove("gone");
    EXPECT_EQ(read_stream_state(options_.state_file).streams.size(), 2u);  // and remove() too
    ASSERT_TRUE(reaches(manager, "clip", StreamState::Finished));
    // Marked finished in the file (by the supervisor, a moment later).
    ASSERT_TRUE(eventually(
        [&] {
          const auto saved = read_stream_state(options_.state_file).streams;
          return saved.size() == 2 && saved[1].finished;
        },
        5));
    struct stat st {};
    ASSERT_EQ(::stat(options_.state_file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600u);
  }
  const auto clip_written = fs::last_write_time(output("clip"));
  StreamManager restored(options_);
  const auto listed = restored.list();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[0].name, "cam1");
  EXPECT_EQ(listed[0].uri, "rtsp://admin:***@127.0.0.1:1/live");
  // A live stream is not a file that finished: its camera refuses, so it reconnects.
  EXPECT_TRUE(eventually([&] { return restored.get("cam1")->state == StreamState::Reconnecting; }, 10))
      << stream_state_name(restored.get("cam1")->state);
  EXPECT_EQ(listed[1].name, "clip");
  EXPECT_EQ(listed[1].state, StreamState::Finished);  // not run again
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(fs::last_write_time(output("clip")), clip_written);
  // The credentials survive in the file (the stream needs them), and only there.
  const auto saved = read_stream_state(options_.state_file).streams;
  EXPECT_EQ(saved[0].spec.uri, "rtsp://admin:hunter2@127.0.0.1:1/live");
  EXPECT_EQ(saved[0].spec.decode.at("reconnect.attempts"), "forever");
}

TEST_F(StreamManagerTest, LiveInputsBeyondTheCapAre503AndFilesWait) {
  options_.max_streams = 2;
  StreamManager manager(options_);
  EXPECT_EQ(manager.info().capacity, 2u);
  manager.put(spec("live1"));
  manager.put(spec("live2"));
  std::string message;
  EXPECT_EQ(rejection(manager, spec("live3"), &message), 503);
  EXPECT_EQ(message, "capacity");
  EXPECT_FALSE(manager.get("live3"));
  manager.put(spec("file1", "testsrc://64x48@30?frames=10"));
  EXPECT_EQ(manager.get("file1")->state, StreamState::Waiting);
  std::this_thread::sleep_for(600ms);
  EXPECT_EQ(manager.get("file1")->state, StreamState::Waiting);
  // Replacing a running live stream keeps its place.
  EXPECT_EQ(manager.put(spec("live2", "testsrc://80x48@30?frames=0")), StreamManager::PutOutcome::Replaced);
  ASSERT_TRUE(reaches(manager, "live2", StreamState::Running));
  manager.remove("live1");
  ASSERT_TRUE(reaches(manager, "file1", StreamState::Finished));
  EXPECT_EQ(test::count_frames(output("file1")), 10);
  EXPECT_EQ(manager.info().streams_by_state.at("finished"), 1);
}

// info()'s streams by state (/v1/info, /metrics) come from counts the manager keeps as
// states change, not from every stream's status: they agree with list() through puts, a
// file waiting for a place, a replacement, a removal still finalizing and a file finishing.
TEST_F(StreamManagerTest, TheCountsByStateAgreeWithTheList) {
  options_.max_streams = 2;
  StreamManager manager(options_);
  const auto agree = [&] {
    std::map<std::string, int> listed;
    std::map<std::string, int> counted;
    const bool same = eventually(
        [&] {
          listed.clear();
          for (const auto& status : manager.list()) ++listed[stream_state_name(status.state)];
          counted = manager.info().streams_by_state;
          return listed == counted;
        },
        10);
    return same ? ::testing::AssertionSuccess()
                : ::testing::AssertionFailure() << "list: " << ::testing::PrintToString(listed)
                                                << ", counted: " << ::testing::PrintToString(counted);
  };
  manager.put(spec("live1"));
  manager.put(spec("live2"));
  EXPECT_TRUE(agree());
  manager.put(spec("file1", "testsrc://64x48@30?frames=10"));  // beyond the cap: waits
  EXPECT_EQ(manager.info().streams_by_state.at("waiting"), 1);  // counted at once, no list() before
  EXPECT_TRUE(agree());
  EXPECT_EQ(manager.put(spec("live2", "testsrc://80x48@30?frames=0")), StreamManager::PutOutcome::Replaced);
  ASSERT_TRUE(reaches(manager, "live2", StreamState::Running));
  EXPECT_TRUE(agree());
  manager.remove("live1");
  EXPECT_TRUE(agree());
  ASSERT_TRUE(reaches(manager, "file1", StreamState::Finished));
  ASSERT_TRUE(eventually([&] { return !manager.get("live1"); }, 10));
  EXPECT_TRUE(agree());
  EXPECT_EQ(manager.info().streams_by_state, (std::map<std::string, int>{{"finished", 1}, {"running", 1}}));
}

// The streams waiting for a place are capped (--max-waiting): beyond it a put is refused,
// 503 naming the cap, instead of a queue that grows with whatever a client or a list asks.
// A replacement of a waiting stream takes no second place in the queue; a removal frees one.
TEST_F(StreamManagerTest, StreamsWaitingForAPlaceAreCapped) {
  options_.max_streams = 1;
  options_.max_waiting = 2;
  StreamManager manager(options_);
  manager.put(spec("live1"));
  manager.put(spec("file1", "testsrc://64x48@30?frames=10"));
  manager.put(spec("file2", "testsrc://64x48@30?frames=10"));
  EXPECT_EQ(manager.get("file2")->state, StreamState::Waiting);
  std::string message;
  EXPECT_EQ(rejection(manager, spec("file3", "testsrc://64x48@30?frames=10"), &message), 503);
  EXPECT_EQ(message, "capacity: 2 streams already wait for a place (--max-waiting 2)");
  EXPECT_FALSE(manager.get("file3"));
  EXPECT_EQ(manager.put(spec("file2", "testsrc://64x48@30?frames=12")), StreamManager::PutOutcome::Replaced);
  manager.remove("file1");
  EXPECT_EQ(manager.put(spec("file3", "testsrc://64x48@30?frames=10")), StreamManager::PutOutcome::Created);
  EXPECT_EQ(manager.get("file3")->state, StreamState::Waiting);
}

TEST_F(StreamManagerTest, RefusalsCarryTheirStatus) {
  StreamManager manager(options_);
  std::string message;
  StreamSpec bad = spec("cam1");
  bad.sets = {{"smooth.radius", "-1"}};
  EXPECT_EQ(rejection(manager, bad, &message), 422);
  EXPECT_NE(message.find("command line: --set smooth.radius"), std::string::npos) << message;
  EXPECT_EQ(rejection(manager, spec("a/b")), 400);
  StreamSpec escape = spec("cam1");
  escape.sets = {{"out.output", "../x.mp4"}};
  EXPECT_EQ(rejection(manager, escape), 403);
  StreamSpec a = spec("a");
  a.sets = {{"out.output", "same.mp4"}};
  StreamSpec b = spec("b");
  b.sets = {{"out.output", "same.mp4"}};
  EXPECT_EQ(rejection(manager, a), 0);
  EXPECT_EQ(rejection(manager, b, &message), 409);
  EXPECT_FALSE(manager.get("b"));
  EXPECT_EQ(manager.list().size(), 1u);
  EXPECT_EQ(read_stream_state(options_.state_file).streams.size(), 1u);  // refusals change nothing
}

// A stream's recent latency covers about the last 10 s (README), not its whole life: the
// window it reports grows with the run at first, then stays near 10 s however long it runs.
TEST_F(StreamManagerTest, RecentLatencyCoversTheLastTenSeconds) {
  StreamManager manager(options_);
  manager.put(spec("cam1"));
  ASSERT_TRUE(reaches(manager, "cam1", StreamState::Running));
  const auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(eventually([&] { return manager.get("cam1")->latency_recent_seconds > 1; }, 10));
  EXPECT_GT(manager.get("cam1")->latency_recent_p50_ms, 0);
  std::this_thread::sleep_until(started + 14s);  // longer than the window and a sample's step
  const auto status = *manager.get("cam1");
  EXPECT_GE(status.latency_recent_seconds, 9.0);
  EXPECT_LE(status.latency_recent_seconds, 12.0) << "the window kept older frames";
  EXPECT_GT(status.latency_recent_p50_ms, 0);
}

TEST_F(StreamManagerTest, FramesOfANodeOnDemand) {
  StreamManager manager(options_);
  manager.put(spec("cam1"));
  ASSERT_TRUE(reaches(manager, "cam1", StreamState::Running));
  const auto frame = manager.frame("cam1", "", std::chrono::milliseconds(static_cast<int>(time_bound(2) * 1000)));
  ASSERT_TRUE(frame.has_value());
  EXPECT_EQ(frame->width, 64);
  EXPECT_EQ(frame->height, 48);
  EXPECT_TRUE(manager.frame("cam1", "input", 2s).has_value());
  try {
    manager.frame("cam1", "nope", 100ms);
    FAIL() << "an unknown node gave a frame";
  } catch (const StreamRejected& e) {
    EXPECT_EQ(e.status(), 404);
  }
  try {
    manager.frame("nope", "", 100ms);
    FAIL() << "an unknown stream gave a frame";
  } catch (const StreamRejected& e) {
    EXPECT_EQ(e.status(), 404);
  }
  EXPECT_TRUE(manager.alive());
}

TEST_F(StreamManagerTest, DrainFinalizesEveryOutputAndRefusesMore) {
  StreamManager manager(options_);
  manager.put(spec("cam1"));
  manager.put(spec("cam2"));
  ASSERT_TRUE(reaches(manager, "cam1", StreamState::Running));
  ASSERT_TRUE(reaches(manager, "cam2", StreamState::Running));
  ASSERT_TRUE(eventually([&] { return manager.get("cam1")->frames > 5 && manager.get("cam2")->frames > 5; }, 10));
  EXPECT_TRUE(manager.info().ready);
  EXPECT_TRUE(manager.drain(std::chrono::milliseconds(static_cast<int>(time_bound(10) * 1000))));
  EXPECT_TRUE(manager.draining());
  EXPECT_FALSE(manager.info().ready);
  std::string message;
  EXPECT_EQ(rejection(manager, spec("cam3"), &message), 503);
  EXPECT_EQ(message, "draining");
  EXPECT_GT(test::count_frames(output("cam1")), 0);
  EXPECT_GT(test::count_frames(output("cam2")), 0);
  // The desired state is kept: a restart brings both back.
  EXPECT_EQ(read_stream_state(options_.state_file).streams.size(), 2u);
}

// A live stream that fails — here a camera that refuses every connection, from the first
// open on — is started again after a growing wait: first, then doubled up to the longest.
// The waits are read from the stream's status while it waits (restart_wait, restarts), never
// timed; it shows reconnecting with its error all along, never failed.
TEST_F(StreamManagerTest, ALiveStreamThatFailsIsStartedAgainAfterAGrowingWait) {
  options_.restart = {.first = 200ms, .longest = 800ms};
  StreamManager manager(options_);
  StreamSpec off = spec("gate", "rtsp://127.0.0.1:1/live");
  off.decode = {{"reconnect.attempts", "0"}, {"timeout_ms", "300"}};
  manager.put(off);
  std::map<std::int64_t, std::int64_t> waits;  // restarts so far -> the wait before the next
  std::set<std::string> states;
  ASSERT_TRUE(eventually(
      [&] {
        const auto status = *manager.get("gate");
        states.insert(stream_state_name(status.state));
        if (status.restart_wait.count() > 0) {
          EXPECT_FALSE(status.last_error.empty());
          EXPECT_NE(status.next_restart, std::chrono::system_clock::time_point{});
          waits[status.restarts] = status.restart_wait.count();
        }
        return waits.size() >= 5;
      },
      30, 10ms))
      << ::testing::PrintToString(waits);
  EXPECT_EQ(waits, (std::map<std::int64_t, std::int64_t>{{0, 200}, {1, 400}, {2, 800}, {3, 800}, {4, 800}}));
  EXPECT_FALSE(states.contains("failed")) << ::testing::PrintToString(states);
  EXPECT_TRUE(states.contains("reconnecting"));
}

// A run that had been running for `healthy_after` before it failed starts the waits over.
// A real RTSP camera loses power (SIGKILL) while the stream runs, twice, and is back before
// each restart: the wait before each restart is the first wait both times, never a doubled
// one (a camera that refuses from the start, above, gets doubled waits). The waits are read
// from the stream's status, never timed.
TEST_F(StreamManagerTest, ARunThatWasWellBeforeItFailedStartsTheWaitsOver) {
  FP_REQUIRE_RTSP_SERVER();
  test::RtspServer camera({.path = "/live", .width = 64, .height = 48, .fps = 25, .frames = -1, .user = {},
                           .password = {}, .record_to = {}});
  // The first wait is long enough for the camera to be started again within it.
  options_.restart = {.first = 3s, .longest = 12s, .healthy_after = 300ms};
  StreamManager manager(options_);
  StreamSpec live = spec("gate", camera.uri());
  // One quick reconnect attempt, which finds the camera still off: the run fails (with no
  // reconnect at all a live input that ends is a stream that finished).
  live.decode = {{"reconnect.attempts", "1"}, {"reconnect.initial_ms", "100"}, {"timeout_ms", "2000"}};
  manager.put(live);
  std::map<std::int64_t, std::int64_t> waits;  // restarts so far -> the wait before the next
  for (std::int64_t restarts = 0; restarts < 2; ++restarts) {
    // Well for longer than healthy_after: frames for over a second at 25 fps.
    ASSERT_TRUE(eventually([&] {
      const auto status = *manager.get("gate");
      return status.restarts == restarts && status.state == StreamState::Running && status.frames > 30;
    }, 30)) << stream_state_name(manager.get("gate")->state) << " " << manager.get("gate")->last_error;
    camera.kill();
    ASSERT_TRUE(eventually([&] { return manager.get("gate")->restart_wait.count() > 0; }, 20))
        << stream_state_name(manager.get("gate")->state) << " " << manager.get("gate")->last_error;
    waits[manager.get("gate")->restarts] = manager.get("gate")->restart_wait.count();
    camera.start();
  }
  EXPECT_EQ(waits, (std::map<std::int64_t, std::int64_t>{{0, 3000}, {1, 3000}}));
}

// While it waits to be started again a live stream keeps its place under max_streams (an API
// add cannot take it); removed or replaced, the place is given back once: exactly one more
// stream fits afterwards.
TEST_F(StreamManagerTest, AStreamWaitingToBeStartedAgainKeepsItsPlaceUntilRemoved) {
  options_.max_streams = 2;
  options_.restart = {.first = 60s, .longest = 60s};  // it waits for the whole test
  StreamManager manager(options_);
  StreamSpec off = spec("gate", "rtsp://127.0.0.1:1/live");
  off.decode = {{"reconnect.attempts", "0"}, {"timeout_ms", "300"}};
  manager.put(off);
  manager.put(spec("yard"));
  ASSERT_TRUE(eventually([&] { return manager.get("gate")->restart_wait.count() > 0; }, 10));
  EXPECT_EQ(state_of(manager, "gate"), StreamState::Reconnecting);
  EXPECT_EQ(rejection(manager, spec("extra")), 503);  // gate's place is still gate's

  // Replaced by a stream that runs: it takes gate's place, no other.
  EXPECT_EQ(manager.put(spec("gate")), StreamManager::PutOutcome::Replaced);
  ASSERT_TRUE(reaches(manager, "gate", StreamState::Running));
  EXPECT_EQ(rejection(manager, spec("extra")), 503);

  // Off again, then removed while it waits: its place frees, once.
  manager.put(off);
  ASSERT_TRUE(eventually([&] { return manager.get("gate") && manager.get("gate")->restart_wait.count() > 0; }, 10));
  ASSERT_TRUE(manager.remove("gate"));
  EXPECT_EQ(rejection(manager, spec("extra")), 0);
  EXPECT_EQ(rejection(manager, spec("one-too-many")), 503);
  ASSERT_TRUE(reaches(manager, "extra", StreamState::Running));
  EXPECT_TRUE(manager.drain(std::chrono::milliseconds(static_cast<int>(time_bound(20) * 1000))));
}

// A file input that fails is not started again, however short the wait.
TEST_F(StreamManagerTest, AFileThatFailsStaysFailed) {
  options_.roots.allow_roots = {dir_.path()};
  options_.restart = {.first = 1ms, .longest = 1ms};
  StreamManager manager(options_);
  std::ofstream(dir_ / "broken.mp4") << "not a video";
  manager.put(spec("clip", (dir_ / "broken.mp4").string()));
  ASSERT_TRUE(reaches(manager, "clip", StreamState::Failed));
  std::this_thread::sleep_for(600ms);  // a few supervisor rounds, each of which could restart it
  const auto status = *manager.get("clip");
  EXPECT_EQ(status.state, StreamState::Failed);
  EXPECT_EQ(status.restarts, 0);
  EXPECT_EQ(status.restart_wait.count(), 0);
}

}  // namespace
}  // namespace fp

namespace fp {
namespace {

// Admission by cost (serve --cost, --cpu-budget): a budget of one core and a template whose
// stream costs 0.4 cores (as a bench --pipeline result would say) holds two streams. A third
// live API stream is refused, 503 naming the resource; a list stream waits, saying which,
// and starts once a running stream is removed. info() gives the budget and what is used.
// Each stream costs 4 cores of a 10-core budget: two fit, a third does not. The cores used
// are the larger of the loads and the process's own measured CPU, and this process (two
// paced 64x48 streams) never measures near 6 cores, so once one is removed the loads decide:
// 4 + 4 <= 10 whatever the machine's load or the build (with 0.4 of 1 core a stream, a
// sanitizer's start-up could hold the measure above the room left).
TEST_F(StreamManagerTest, StreamsBeyondTheBudgetAreRefusedOrWaitNamingTheResource) {
  options_.template_costs = {{"smooth", PipelineCost{.fps = 30, .cpu_ms = 400.0 / 3, .gpu_ms = 0, .host_bytes = 0,
                                                     .device_bytes = 0}}};
  options_.budget.cpu_cores = 10;
  StreamManager manager(options_);
  manager.put(spec("live1"));
  manager.put(spec("live2"));
  std::string message;
  EXPECT_EQ(rejection(manager, spec("live3"), &message), 503);
  EXPECT_EQ(message, "capacity: cpu_encode");
  EXPECT_FALSE(manager.get("live3"));
  StreamSpec listed = spec("listed");
  listed.source = StreamSource::List;
  manager.put(listed);
  ASSERT_TRUE(manager.get("listed"));
  EXPECT_EQ(manager.get("listed")->state, StreamState::Waiting);
  EXPECT_EQ(manager.get("listed")->last_error, "capacity: cpu_encode");
  const ManagerInfo info = manager.info();
  EXPECT_DOUBLE_EQ(info.budget.cpu_cores, 10);
  EXPECT_GE(info.used.cpu_cores, 8 - 1e-9);
  EXPECT_DOUBLE_EQ(info.used.streams, 2);
  EXPECT_EQ(info.capacity, 8u);  // the cap is not what refused it
  manager.remove("live1");
  ASSERT_TRUE(reaches(manager, "listed", StreamState::Running, 10));
  EXPECT_EQ(manager.get("listed")->last_error, "");
}

// A template without a cost takes no load: its streams are capped by --max-streams alone.
TEST_F(StreamManagerTest, ATemplateWithoutACostIsCappedByTheCountAlone) {
  options_.budget.cpu_cores = 0.01;
  options_.max_streams = 3;
  StreamManager manager(options_);
  manager.put(spec("live1"));
  manager.put(spec("live2"));
  manager.put(spec("live3"));
  std::string message;
  EXPECT_EQ(rejection(manager, spec("live4"), &message), 503);
  EXPECT_EQ(message, "capacity");
}

}  // namespace
}  // namespace fp
