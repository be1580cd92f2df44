// The stream list of `framepipe serve --stream-list`: the file's shape and its errors (file,
// line, key), and StreamListSync on a real StreamManager (testsrc at its frame rate on the
// CPU): a changed list starts/stops only what changed, a shard runs only its streams, a
// stream over the cap waits (reported) and starts when a place frees, the API's and the
// list's names do not fight, a bad re-read keeps the streams running.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "pipeline/stream_list/list.hpp"
#include "pipeline/stream_list/list_sync.hpp"
#include "pipeline/stream_list/shard.hpp"
#include "pipeline/streams/manager.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/time_bound.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using test::TempDir;
using test::eventually;
using test::time_bound;

std::string list_error(const std::string& text) {
  try {
    parse_stream_list(text, "streams.yaml", "camera");
  } catch (const StreamListError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(StreamList, ReadsEveryKey) {
  const auto specs = parse_stream_list(R"(streams:
  - name: door
    uri: rtsp://admin:pw@10.0.0.2/live
    pipeline: denoise
    set: {denoise.h: 12, fused.levels: 4, crop.rect: [1, 2, 3, 4]}
    decode: {reconnect: forever, timeout_ms: 5000}
  - {name: yard, uri: 'testsrc://64x48@30?frames=0'}
)",
                                       "streams.yaml", "camera");
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].name, "door");
  EXPECT_EQ(specs[0].uri, "rtsp://admin:pw@10.0.0.2/live");
  EXPECT_EQ(specs[0].pipeline, "denoise");
  EXPECT_EQ(specs[0].sets.at("denoise.h"), "12");
  EXPECT_EQ(specs[0].sets.at("crop.rect"), "[1, 2, 3, 4]");
  EXPECT_EQ(specs[0].decode.at("reconnect"), "forever");
  EXPECT_EQ(specs[0].source, StreamSource::List);
  EXPECT_EQ(specs[1].pipeline, "camera");  // the default
  EXPECT_TRUE(specs[1].sets.empty());
}

// Only `streams: []` says "no streams": a file cut short while being written (by `cp`, or a
// shell's `>`) reads as empty, or as comments only, or as `streams:` with nothing after it,
// and must not be taken for the operator's wish to stop every stream.
TEST(StreamList, OnlyAnExplicitEmptyListIsNoStreams) {
  EXPECT_TRUE(parse_stream_list("streams: []\n", "f", "p").empty());
  EXPECT_TRUE(parse_stream_list("# none yet\nstreams: []\n", "f", "p").empty());
  for (const char* text : {"", "\n\n", "# the cameras\n#  - name: a\n", "streams:\n", "streams:\n# - {name: a}\n"}) {
    try {
      parse_stream_list(text, "f", "p");
      ADD_FAILURE() << "'" << text << "' was taken for a list of no streams";
    } catch (const StreamListError& e) {
      EXPECT_EQ(std::string(e.what()).rfind("f: ", 0), 0u) << e.what();
      EXPECT_NE(std::string(e.what()).find("write `streams: []`"), std::string::npos) << e.what();
    }
  }
}

TEST(StreamList, ErrorsNameTheFileLineAndKey) {
  EXPECT_EQ(list_error("streams:\n  - {name: a, uri: x}\n  - name: b\n    pipeline: p\n"),
            "streams.yaml:3: streams[1].uri: missing");
  EXPECT_EQ(list_error("streams:\n  - {name: a, uri: x, url: y}\n"),
            "streams.yaml:2: streams[0].url: unknown key (expected name, uri, pipeline, set, decode)");
  EXPECT_EQ(list_error("streams:\n  - {name: a, uri: x}\n  - {name: a, uri: y}\n"),
            "streams.yaml:3: streams[1].name: a is listed twice");
  EXPECT_EQ(list_error("cameras: []\n"), "streams.yaml:1: cameras: unknown key (a stream list has only 'streams')");
  EXPECT_EQ(list_error("streams: {a: 1}\n"), "streams.yaml:1: streams: expected a list of streams, got a map");
  EXPECT_EQ(list_error("streams:\n  - {name: a, uri: x, set: [1]}\n"),
            "streams.yaml:2: streams[0].set: expected a map of STAGE.PARAM -> value, got a list");
  EXPECT_EQ(list_error("streams:\n  - {name: a, uri: x, set: {s.r: {x: 1}}}\n"),
            "streams.yaml:2: streams[0].set.s.r: expected a number, text, boolean or list, got a map");
  EXPECT_NE(list_error("streams:\n  - {name: ../etc, uri: x}\n").find("streams.yaml:2: streams[0].name: stream name '../etc'"),
            std::string::npos);
  EXPECT_NE(list_error("streams: [\n").find("streams.yaml:"), std::string::npos);
  EXPECT_NE(list_error("streams:\n  - {name: a, uri: [x]}\n").find("streams[0].uri: expected a string, got a list"),
            std::string::npos);
}

TEST(StreamList, ErrorsHideCredentials) {
  const std::string error = list_error("streams:\n  - {name: a, uri: 'rtsp://admin:hunter2@cam/1', uri2: 1}\n");
  EXPECT_EQ(error.find("hunter2"), std::string::npos) << error;
  const std::string bad_yaml = list_error("streams:\n  - {name: a, uri: rtsp://admin:hunter2@cam/1\n");
  EXPECT_EQ(bad_yaml.find("hunter2"), std::string::npos) << bad_yaml;
}

TEST(StreamList, AFileThatCannotBeReadIsNamed) {
  try {
    read_stream_list("/nonexistent/streams.yaml", "p");
    FAIL();
  } catch (const StreamListError& e) {
    EXPECT_EQ(std::string(e.what()), "/nonexistent/streams.yaml: cannot read the stream list: no such file");
  }
}

// A FIFO (or a device) in the list's place is refused at once: opening it to read would wait
// for a writer, holding serve's start, or its poll thread and then its drain, forever.
TEST(StreamList, AFifoIsRefusedWithoutWaitingForAWriter) {
  test::TempDir dir("stream-list-fifo");
  const auto fifo = dir / "streams.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    read_stream_list(fifo, "p");
    FAIL();
  } catch (const StreamListError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

// ---- StreamListSync on a real manager -------------------------------------------------------

constexpr const char* kTemplate = R"(input: testsrc://64x48@30?frames=0
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: hist, type: luma_histogram, output: '{stream}-hist.jsonl'}
)";

class StreamListSyncTest : public ::testing::Test {
 protected:
  StreamListSyncTest() : dir_("stream-list-sync") {
    fs::create_directories(dir_ / "outputs");
    std::ofstream(dir_ / "camera.yaml") << kTemplate;
    options_.pipelines = {{"camera", dir_ / "camera.yaml"}};
    options_.roots.output_root = dir_ / "outputs";
    options_.max_streams = 8;
    options_.run.realtime = true;
  }

  void write_list(const std::string& text) {
    // As a ConfigMap changes: the new content whole, renamed over the old.
    std::ofstream(dir_ / "streams.yaml.new") << text;
    fs::rename(dir_ / "streams.yaml.new", dir_ / "streams.yaml");
  }

  std::unique_ptr<StreamListSync> sync(StreamManager& manager, Shard shard = {}) {
    return std::make_unique<StreamListSync>(
        manager, StreamListSyncOptions{.file = dir_ / "streams.yaml", .shard = shard, .default_pipeline = "camera",
                                       .poll = 50ms});
  }

  static std::string names(const StreamManager& manager) {
    std::string all;
    for (const auto& s : manager.list()) all += (all.empty() ? "" : " ") + s.name;
    return all;
  }

  static bool running(const StreamManager& manager, const std::string& name) {
    const auto status = manager.get(name);
    return status && status->state == StreamState::Running;
  }

  static std::int64_t frames(const StreamManager& manager, const std::string& name) {
    const auto status = manager.get(name);
    return status ? status->frames : -1;
  }

  TempDir dir_;
  StreamManagerOptions options_;
};

TEST_F(StreamListSyncTest, AChangedListTouchesOnlyWhatChanged) {
  write_list("streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n"
             "  - {name: b, uri: 'testsrc://64x48@30?frames=0'}\n"
             "  - {name: c, uri: 'testsrc://64x48@30?frames=0'}\n");
  StreamManager manager(options_);
  auto list = sync(manager);
  EXPECT_EQ(names(manager), "a b c");
  ASSERT_TRUE(eventually([&] { return running(manager, "a") && running(manager, "b") && running(manager, "c"); }, 10));
  for (const auto& s : manager.list()) EXPECT_EQ(s.source, StreamSource::List) << s.name;
  ASSERT_TRUE(eventually([&] { return frames(manager, "a") >= 15 && frames(manager, "b") >= 15; }, 10));

  // a stays, b changes (its smoothing), c goes, d comes.
  write_list("streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n"
             "  - {name: b, uri: 'testsrc://64x48@30?frames=0', set: {smooth.radius: 2}}\n"
             "  - {name: d, uri: 'testsrc://64x48@30?frames=0'}\n");
  const auto changed_at = std::chrono::system_clock::now();
  const auto a_frames = frames(manager, "a");
  ASSERT_TRUE(eventually([&] { return names(manager) == "a b d" && list->status().reads_ok == 2; }, 10)) << names(manager);
  // a never restarted (still in the state it entered before the change, its frames growing);
  // b restarted with its new set (a new run: its state entered after the change).
  EXPECT_LT(manager.get("a")->since, changed_at);
  EXPECT_GE(frames(manager, "a"), a_frames);
  EXPECT_GE(manager.get("b")->since, changed_at);
  EXPECT_EQ(manager.specs().size(), 3u);
  for (const auto& spec : manager.specs()) {
    if (spec.name == "b") {
      EXPECT_EQ(spec.sets.at("smooth.radius"), "2");
    }
  }
  const auto status = list->status();
  EXPECT_EQ(status.listed, 3u);
  EXPECT_EQ(status.assigned, 3u);
  EXPECT_TRUE(status.error.empty());
}

TEST_F(StreamListSyncTest, AShardRunsOnlyItsStreams) {
  std::string text = "streams:\n";
  for (int i = 0; i < 12; ++i) text += "  - {name: cam-" + std::to_string(i) + ", uri: 'testsrc://64x48@30?frames=0'}\n";
  write_list(text);
  options_.max_streams = 12;
  std::set<std::string> seen;
  for (std::uint32_t ordinal = 0; ordinal < 3; ++ordinal) {
    StreamManager manager(options_);
    auto list = sync(manager, Shard{ordinal, 3});
    for (const auto& s : manager.list()) {
      EXPECT_EQ(rendezvous_owner(s.name, 3), ordinal) << s.name;
      EXPECT_TRUE(seen.insert(s.name).second) << s.name << " runs on two shards";
    }
    EXPECT_EQ(list->status().assigned, manager.list().size());
    EXPECT_EQ(list->status().listed, 12u);
  }
  EXPECT_EQ(seen.size(), 12u);
}

TEST_F(StreamListSyncTest, OverTheCapAStreamWaitsReportedAndStartsWhenAPlaceFrees) {
  options_.max_streams = 2;
  write_list("streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n"
             "  - {name: b, uri: 'testsrc://64x48@30?frames=0'}\n"
             "  - {name: c, uri: 'testsrc://64x48@30?frames=0'}\n");
  StreamManager manager(options_);
  auto list = sync(manager);
  ASSERT_TRUE(eventually([&] { return running(manager, "a") && running(manager, "b"); }, 10));
  const auto c = manager.get("c");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->state, StreamState::Waiting);
  EXPECT_EQ(c->last_error, "capacity");
  EXPECT_EQ(manager.info().streams_by_state.at("waiting"), 1);
  EXPECT_TRUE(list->status().rejected.empty());  // not refused: waiting

  write_list("streams:\n  - {name: b, uri: 'testsrc://64x48@30?frames=0'}\n"
             "  - {name: c, uri: 'testsrc://64x48@30?frames=0'}\n");
  EXPECT_TRUE(eventually([&] { return running(manager, "c"); }, 10));
}

TEST_F(StreamListSyncTest, TheListAndTheApiKeepTheirOwnStreams) {
  StreamManager manager(options_);
  manager.put(StreamSpec{.name = "x", .pipeline = "camera", .uri = "testsrc://64x48@30?frames=0", .sets = {}, .decode = {}});
  write_list("streams:\n  - {name: x, uri: 'testsrc://64x48@30?frames=0&noise=3'}\n"
             "  - {name: y, uri: 'testsrc://64x48@30?frames=0'}\n");
  auto list = sync(manager);
  const auto status = list->status();
  ASSERT_EQ(status.rejected.count("x"), 1u);
  EXPECT_NE(status.rejected.at("x").find("added through the API"), std::string::npos) << status.rejected.at("x");
  EXPECT_EQ(manager.get("x")->source, StreamSource::Api);
  try {
    manager.remove("y");  // by the API
    FAIL() << "the API removed a list stream";
  } catch (const StreamRejected& e) {
    EXPECT_EQ(e.status(), 409);
    EXPECT_NE(std::string(e.what()).find("stream list"), std::string::npos) << e.what();
  }
  // Once the API lets the name go, the list's stream takes it at the next poll.
  ASSERT_TRUE(manager.remove("x"));
  EXPECT_TRUE(eventually([&] {
    const auto x = manager.get("x");
    return x && x->source == StreamSource::List && list->status().rejected.empty();
  }, 10));
}

TEST_F(StreamListSyncTest, ABadReReadKeepsTheStreamsAndSaysWhy) {
  write_list("streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n");
  StreamManager manager(options_);
  auto list = sync(manager);
  ASSERT_TRUE(eventually([&] { return running(manager, "a"); }, 10));
  write_list("streams:\n  - {name: a}\n");
  ASSERT_TRUE(eventually([&] { return list->status().reads_failed == 1; }, 10));
  EXPECT_EQ(list->status().error, (dir_ / "streams.yaml").string() + ":2: streams[0].uri: missing");
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(running(manager, "a"));
  EXPECT_EQ(list->status().reads_failed, 1);  // the same content is not refused again
  write_list("streams: []\n");
  EXPECT_TRUE(eventually([&] { return manager.list().empty() && list->status().error.empty(); }, 10));
}

// The list cannot be read at all for a while (here a directory stands in its place, which
// root cannot read as a list either): the streams keep running, the failure is reported once
// (not at every poll) naming the file, and the next readable content is read whole.
TEST_F(StreamListSyncTest, AListThatCannotBeReadKeepsTheStreamsAndIsReadWholeOnceItCan) {
  write_list("streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n");
  StreamManager manager(options_);
  auto list = sync(manager);
  ASSERT_TRUE(eventually([&] { return running(manager, "a"); }, 10));
  fs::remove(dir_ / "streams.yaml");
  fs::create_directory(dir_ / "streams.yaml");
  ASSERT_TRUE(eventually([&] { return list->status().reads_failed == 1; }, 10));
  EXPECT_NE(list->status().error.find((dir_ / "streams.yaml").string()), std::string::npos) << list->status().error;
  EXPECT_NE(list->status().error.find("not a regular file"), std::string::npos) << list->status().error;
  std::this_thread::sleep_for(500ms);  // ten polls, none of which may report it again
  EXPECT_EQ(list->status().reads_failed, 1);
  EXPECT_TRUE(running(manager, "a"));

  // Back with the very content it had: read whole and in force again (the error cleared),
  // though nothing in it changed.
  fs::remove(dir_ / "streams.yaml");
  const std::int64_t reads_before = list->status().reads_ok;
  write_list("streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n");
  ASSERT_TRUE(eventually([&] { return list->status().error.empty(); }, 10)) << list->status().error;
  EXPECT_EQ(list->status().reads_ok, reads_before + 1);
  EXPECT_TRUE(running(manager, "a"));
}

// The list emptied as `cp` or a shell's `>` leaves it while writing (truncated first), or
// left with comments only: the streams of the last good list keep running, and the status
// says why the file is not in force and how to say "none" for real.
TEST_F(StreamListSyncTest, AnEmptiedListKeepsTheLastGoodOneAndSaysWhy) {
  const std::string good = "streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n"
                           "  - {name: b, uri: 'testsrc://64x48@30?frames=0'}\n";
  write_list(good);
  StreamManager manager(options_);
  auto list = sync(manager);
  ASSERT_TRUE(eventually([&] { return running(manager, "a") && running(manager, "b"); }, 10));
  const std::string file = (dir_ / "streams.yaml").string();
  std::int64_t reads_ok = list->status().reads_ok;
  for (const std::string emptied : {"", "# cameras go here\n", "streams:\n"}) {
    std::ofstream(dir_ / "streams.yaml", std::ios::trunc) << emptied;  // as `>` does: in place
    ASSERT_TRUE(eventually([&] { return !list->status().error.empty(); }, 10)) << "'" << emptied << "'";
    const std::string error = list->status().error;
    EXPECT_EQ(error.rfind(file + ": ", 0), 0u) << error;
    EXPECT_NE(error.find("the last good list (2 streams) is kept; write `streams: []` to remove them all"),
              std::string::npos)
        << error;
    EXPECT_EQ(names(manager), "a b") << "'" << emptied << "'";
    EXPECT_TRUE(running(manager, "a") && running(manager, "b"));
    write_list(good);  // back: in force again, the error gone
    ASSERT_TRUE(eventually([&] { return list->status().error.empty() && list->status().reads_ok > reads_ok; }, 10));
    reads_ok = list->status().reads_ok;
  }
  EXPECT_EQ(names(manager), "a b");
  // Said explicitly: no streams.
  write_list("streams: []\n");
  EXPECT_TRUE(eventually([&] { return manager.specs().empty() && list->status().error.empty(); }, 10));
}

// A listed camera that is off is started again by the manager, as an API stream is (the
// list has no restart rule of its own any more); once no longer listed it is gone, and so are
// its restarts.
TEST_F(StreamListSyncTest, AFailedStreamIsStartedAgainAfterAGrowingWait) {
  write_list("streams:\n  - {name: off, uri: 'rtsp://127.0.0.1:1/live', decode: {timeout_ms: 300}}\n"
             "  - {name: on, uri: 'testsrc://64x48@30?frames=0'}\n");
  options_.restart = {.first = 200ms, .longest = 800ms};
  StreamManager manager(options_);
  auto list = std::make_unique<StreamListSync>(
      manager, StreamListSyncOptions{.file = dir_ / "streams.yaml", .shard = {}, .default_pipeline = "camera",
                                     .poll = 20ms});
  // The wait before each start, read from the stream's status while it waits: first, then
  // doubled up to the longest (a constant wait would not do).
  std::map<std::int64_t, std::int64_t> waits;  // restarts so far -> the wait before the next
  ASSERT_TRUE(eventually(
      [&] {
        const auto off = manager.get("off");
        if (off && off->restart_wait.count() > 0) waits[off->restarts] = off->restart_wait.count();
        return waits.size() >= 4;
      },
      20, 10ms))
      << ::testing::PrintToString(waits);
  EXPECT_EQ(waits, (std::map<std::int64_t, std::int64_t>{{0, 200}, {1, 400}, {2, 800}, {3, 800}}));
  EXPECT_TRUE(running(manager, "on"));
  EXPECT_EQ(manager.get("off")->source, StreamSource::List);
  // No longer listed: no longer there, nor restarted.
  write_list("streams:\n  - {name: on, uri: 'testsrc://64x48@30?frames=0'}\n");
  ASSERT_TRUE(eventually([&] { return !manager.get("off"); }, 10));
  std::this_thread::sleep_for(1s);  // longer than the longest wait: a restart would have brought it back
  EXPECT_FALSE(manager.get("off"));
}

TEST_F(StreamListSyncTest, ABadListAtStartIsAnError) {
  write_list("streams:\n  - {uri: x}\n");
  StreamManager manager(options_);
  EXPECT_THROW(sync(manager), StreamListError);
  fs::remove(dir_ / "streams.yaml");
  EXPECT_THROW(sync(manager), StreamListError);
  // An empty file at start: there is no last good list to keep, and it is refused all the
  // same (a service must not come up running nothing by a file cut short).
  write_list("");
  try {
    sync(manager);
    FAIL() << "an empty list was taken at start";
  } catch (const StreamListError& e) {
    EXPECT_EQ(std::string(e.what()), (dir_ / "streams.yaml").string() +
                                         ": empty file (only blank lines or comments): write `streams: []` for a "
                                         "list of no streams");
  }
  EXPECT_TRUE(manager.specs().empty());
}

TEST_F(StreamListSyncTest, ARestartLeavesTheRestoredStreamsAloneAndForgetsUnlisted) {
  options_.state_file = dir_ / "state.json";
  options_.has_stream_list = true;  // as serve --stream-list: the list takes its restored streams over
  write_list("streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n"
             "  - {name: b, uri: 'testsrc://64x48@30?frames=0'}\n");
  {
    StreamManager manager(options_);
    auto list = sync(manager);
    ASSERT_TRUE(eventually([&] { return running(manager, "a") && running(manager, "b"); }, 10));
  }
  // The list changed while the process was down: b is gone.
  write_list("streams:\n  - {name: a, uri: 'testsrc://64x48@30?frames=0'}\n");
  StreamManager manager(options_);
  EXPECT_EQ(names(manager), "a b");  // restored from the state file
  ASSERT_TRUE(eventually([&] { return running(manager, "a"); }, 10));
  const auto a_since = manager.get("a")->since;
  auto list = sync(manager);
  ASSERT_EQ(manager.specs().size(), 1u);  // b is no longer desired (it may still be finalizing)
  EXPECT_EQ(manager.specs().front().name, "a");
  EXPECT_TRUE(eventually([&] { return names(manager) == "a"; }, 10)) << names(manager);
  EXPECT_EQ(manager.get("a")->source, StreamSource::List);
  std::this_thread::sleep_for(200ms);
  EXPECT_TRUE(running(manager, "a"));
  EXPECT_EQ(manager.get("a")->since, a_since);  // the restored run, not put again
}

}  // namespace
}  // namespace fp
