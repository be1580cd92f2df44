// framepipe serve from start to end: its command line (duplicate template names, the
// listening line), and the drain — SIGTERM or POST /v1/drain: /readyz 503 and adds refused,
// every stream finalized, exit 0; a second signal ends it at once, and so does a SIGTERM
// after POST /v1/drain. SIGHUP is a reload, never an end.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "tests/e2e/fifo_waits.hpp"
#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

using nlohmann::json;

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

const std::string kEndlessBody = R"({"uri": "testsrc://64x48@30?frames=0"})";

// Waits until the stream has frames through (its output then has something to finalize).
bool wait_for_frames(const ServeProcess& server, const std::string& name) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
  while (std::chrono::steady_clock::now() < deadline) {
    if (curl("GET", server.url("/v1/streams/" + name)).json().value("frames", 0LL) > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(ServeLifecycle, DuplicateTemplateNamesAreAUsageError) {
  TempDir dir("serve-duplicates");
  std::filesystem::create_directories(dir / "a");
  std::filesystem::create_directories(dir / "b");
  write_templates(dir / "a", {{"cam", kSmoothTemplate}});
  write_templates(dir / "b", {{"cam", kSmoothTemplate}});
  const auto result = run_framepipe_with_timeout({"serve", "a/cam.yaml", "b/cam.yaml", "--listen", "127.0.0.1:0"},
                                                 dir.path(), static_cast<int>(time_bound(30)));
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("'cam'"), std::string::npos) << result.output;
}

TEST(ServeLifecycle, SigtermDrainsEveryStreamAndExitsZero) {
  ServeProcess server("sigterm");
  ASSERT_SERVING(server);
  for (const char* name : {"cam1", "cam2"})
    ASSERT_EQ(curl_with_body("PUT", server.url(std::string("/v1/streams/") + name), kEndlessBody).status, 201);
  ASSERT_TRUE(wait_for_frames(server, "cam1") && wait_for_frames(server, "cam2")) << server.log();
  server.process().signal(SIGTERM);
  const auto [code, seconds] = server.process().wait(time_bound(25));
  EXPECT_EQ(code, 0) << server.log();
  EXPECT_LT(seconds, time_bound(20)) << server.log();
  EXPECT_NE(server.log().find("drained"), std::string::npos) << server.log();
  for (const char* name : {"cam1.mkv", "cam2.mkv"})
    EXPECT_GT(count_frames(server.outputs() / name), 0) << name << " not finalized\n" << server.log();
}

// A slow stream is not a stuck one: /livez asks whether a stream's executor makes any
// progress at all, with a bound far longer than a frame (5 minutes), so a stream whose frames
// take seconds each leaves it answering 200 throughout. One worker thread (FRAMEPIPE_THREADS),
// so a frame takes what one core needs: temporal_nlmeans at its maxima on 1280x720, 8 s for
// the third frame (two earlier ones searched) on an idle 2-core machine, 20 s beside a build.
// The test sees a frame take longer than the bound /livez had before (5 s after a 10 s
// start grace; it then answered 503 here), so it cannot pass on frames too fast to tell.
// Three frames, and the stream ends by itself: a drain would wait for the frame in flight.
// A sanitizer build runs the stage several times slower: its frames have 1/scale of the
// pixels (FRAMEPIPE_TEST_TIME_SCALE: ASan 2, TSan 4), so that the test costs what it costs
// here and its frames still take longer than the old bound.
TEST(ServeLifecycle, ASlowStreamLeavesLivezAnswering) {
  // Measured in CI's tsan step: a 640x360 frame of this stage took over 7 minutes. The test
  // is about /livez, not threads (the stream's are the plain executor's); ASan runs it.
  if (cli_sanitizer() == CliSanitizer::Thread)
    GTEST_SKIP() << "ThreadSanitizer runs this stage hundreds of times slower (minutes a frame)";
  // A frame must take well over the old bound (6 s): 1280x720 takes ~8 s in a release build
  // on CI's 2 cores. AddressSanitizer runs this stage ~15 times slower (a 904x508 frame took
  // ~60 s in CI's asan step, 185 s for the test): there an eighth of the pixels, ~15 s a frame.
  const double shrink = cli_sanitizer() == CliSanitizer::Address ? 2.8 : std::sqrt(time_bound(1.0));
  const auto even = [](double size) { return 2 * static_cast<int>(size / 2); };
  const std::string uri = "testsrc://" + std::to_string(even(1280 / shrink)) + "x" + std::to_string(even(720 / shrink)) +
                          "@25?frames=3";
  ::setenv("FRAMEPIPE_THREADS", "1", 1);
  ServeProcess server("slow-livez", {.templates = {{"slow", "device: cpu\ninput: " + uri + R"(
stages:
  - {id: denoise, type: temporal_nlmeans, patch: 15, search: 51, frames: 4, temporal_search: 21}
  - {id: out, type: encode, output: null}
)"}}});
  ::unsetenv("FRAMEPIPE_THREADS");
  ASSERT_SERVING(server);
  const auto created = put_stream(server, "slow", {{"pipeline", "slow"}, {"uri", uri}});
  ASSERT_EQ(created.status, 201) << created.body;
  constexpr double kOldBoundSeconds = 5.0;
  using SteadyClock = std::chrono::steady_clock;
  const auto deadline = SteadyClock::now() + std::chrono::duration<double>(time_bound(120));
  long long frames = 0;
  SteadyClock::time_point last_change{};
  double longest_frame_seconds = 0;
  int probes = 0;
  std::vector<std::string> failed_probes;
  json stream;
  while (SteadyClock::now() < deadline && server.process().alive()) {
    const auto probe = curl("GET", server.url("/livez"), {}, 5);
    ++probes;
    if (probe.status != 200) failed_probes.push_back(std::to_string(probe.status) + " " + probe.body);
    stream = curl("GET", server.url("/v1/streams/slow")).json();
    if (const long long now_frames = stream.value("frames", 0LL); now_frames != frames) {
      const auto now = SteadyClock::now();
      if (frames > 0) longest_frame_seconds = std::max(longest_frame_seconds, std::chrono::duration<double>(now - last_change).count());
      frames = now_frames;
      last_change = now;
    }
    if (stream.value("state", "") != "running" && stream.value("state", "") != "starting" && frames > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  EXPECT_EQ(stream.value("state", ""), "finished") << stream.dump() << "\n" << server.log();
  ASSERT_GT(longest_frame_seconds, kOldBoundSeconds + 1)
      << "no frame took longer than the old bound, so this proves nothing: " << frames << " frames\n" << server.log();
  EXPECT_TRUE(failed_probes.empty()) << failed_probes.size() << " of " << probes << " probes failed, the first: "
                                     << failed_probes.front() << "\n" << server.log();
}

TEST(ServeLifecycle, ReadyIsNotAboutCameras) {
  ServeProcess server("ready");
  ASSERT_SERVING(server);
  // A camera that cannot be reached does not make the service unready.
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/dead"), R"({"uri": "rtsp://127.0.0.1:9/none"})").status, 201);
  // First see it down (its camera refused: failed, or waiting to be started again), then ask.
  json dead;
  ASSERT_TRUE(eventually([&] {
    dead = curl("GET", server.url("/v1/streams/dead")).json();
    const std::string state = dead.value("state", "");
    return (state == "reconnecting" || state == "failed") && !dead.value("last_error", "").empty();
  }, 20, std::chrono::milliseconds(100)))
      << dead.dump() << "\n" << server.log();
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200);
  EXPECT_EQ(curl("GET", server.url("/livez")).status, 200);
}

// A stream that cannot finish: its output is a FIFO nobody reads, so opening it blocks and
// the stream stays `starting` (a drain cannot end it). Returns once the stream's thread is
// in that open: a drain asked earlier would stop the stream before it opens its outputs,
// and it would end at once (the drain then finishes, exit 0).
void add_stuck_stream(ServeProcess& server) {
  ASSERT_EQ(mkfifo((server.outputs() / "stuck.mkv").c_str(), 0600), 0);
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/stuck"), kEndlessBody).status, 201) << server.log();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
  while (!waits_on_a_fifo(server.process().pid()) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(waits_on_a_fifo(server.process().pid()))
      << "no thread of the server waits to open the FIFO stuck.mkv\n" << server.log();
}

bool wait_for_log(ServeProcess& server, const std::string& text) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(10));
  while (server.log().find(text) == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return server.log().find(text) != std::string::npos;
}

TEST(ServeLifecycle, DrainRequestRefusesAddsAndEnds) {
  // A stuck stream keeps the drain going (until --drain-timeout) while the server is asked.
  ServeProcess server("drain-api", {.drain_timeout = 3});
  ASSERT_SERVING(server);
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/cam1"), kEndlessBody).status, 201);
  ASSERT_TRUE(wait_for_frames(server, "cam1")) << server.log();
  ASSERT_NO_FATAL_FAILURE(add_stuck_stream(server));
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200);
  // As README's `curl -X POST -H 'Content-Type: application/json' URL`: no body.
  const auto drain = curl("POST", server.url("/v1/drain"), {"-H", "Content-Type: application/json"});
  EXPECT_EQ(drain.status, 202) << drain.body;
  // At once: not ready, adds refused; the rest of the API still answers.
  const auto ready = curl("GET", server.url("/readyz"));
  EXPECT_EQ(ready.status, 503) << ready.body;
  EXPECT_EQ(ready.json().value("error", ""), "draining") << ready.body;
  const auto put = curl_with_body("PUT", server.url("/v1/streams/cam2"), kEndlessBody);
  EXPECT_EQ(put.status, 503) << put.body;
  EXPECT_EQ(put.json().value("error", ""), "draining") << put.body;
  const auto ds = curl_with_body("POST", server.url("/api/v1/stream/add"),
                                 R"({"key": "sensor", "value": {"camera_id": "cam3", "camera_url": "testsrc://64x48@30?frames=0", "change": "camera_add"}})");
  EXPECT_EQ(ds.status, 503) << ds.body;
  EXPECT_EQ(curl("GET", server.url("/v1/streams")).status, 200);
  EXPECT_EQ(curl("GET", server.url("/livez")).status, 200);
  // The stuck stream keeps it past --drain-timeout: exit 1 naming it; cam1 was finalized.
  const auto [code, seconds] = server.process().wait(time_bound(15));
  EXPECT_EQ(code, 1) << server.log();
  EXPECT_NE(server.log().find("not finished: stuck"), std::string::npos) << server.log();
  EXPECT_GT(count_frames(server.outputs() / "cam1.mkv"), 0) << server.log();
}

TEST(ServeLifecycle, DrainTimeoutNamesTheStreamsThatDidNotFinish) {
  ServeProcess server("drain-timeout", {.drain_timeout = 1});
  ASSERT_SERVING(server);
  ASSERT_NO_FATAL_FAILURE(add_stuck_stream(server));
  server.process().signal(SIGTERM);
  const auto [code, seconds] = server.process().wait(time_bound(10));
  EXPECT_EQ(code, 1) << server.log();
  EXPECT_LT(seconds, time_bound(5)) << server.log();
  EXPECT_NE(server.log().find("not finished: stuck"), std::string::npos) << server.log();
}

TEST(ServeLifecycle, SecondSignalEndsAtOnce) {
  ServeProcess server("second-signal", {.drain_timeout = 60});
  ASSERT_SERVING(server);
  ASSERT_NO_FATAL_FAILURE(add_stuck_stream(server));
  server.process().signal(SIGTERM);
  // The second signal after the first was seen (two at once may arrive as one).
  ASSERT_TRUE(wait_for_log(server, "draining")) << server.log();
  server.process().signal(SIGTERM);
  const auto [code, seconds] = server.process().wait(time_bound(10));
  EXPECT_EQ(code, 130) << server.log();
  EXPECT_LT(seconds, time_bound(3)) << server.log();
}

// A drain asked through the API is the first stop: a SIGTERM after it is the second, which
// ends the process at once (as after a first signal), not one more wait for the drain.
TEST(ServeLifecycle, SigtermAfterADrainRequestEndsAtOnce) {
  ServeProcess server("drain-then-sigterm", {.drain_timeout = 60});
  ASSERT_SERVING(server);
  ASSERT_NO_FATAL_FAILURE(add_stuck_stream(server));
  EXPECT_EQ(curl("POST", server.url("/v1/drain"), {"-H", "Content-Type: application/json"}).status, 202);
  ASSERT_TRUE(wait_for_log(server, "draining")) << server.log();
  server.process().signal(SIGTERM);
  const auto [code, seconds] = server.process().wait(time_bound(10));
  EXPECT_EQ(code, 130) << server.log();
  EXPECT_LT(seconds, time_bound(3)) << server.log();
}

// SIGHUP (a terminal closed, `systemctl reload`, `kill -HUP`) is the service's reload: without
// a stream list there is nothing to re-read, which the log says; the streams run on untouched,
// and a SIGTERM later drains them as always (it used to end the process at once, exit 129,
// its outputs never finalized: a 0-byte .mkv).
TEST(ServeLifecycle, SighupIsAReloadNeverAnEnd) {
  ServeProcess server("sighup");
  ASSERT_SERVING(server);
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/cam1"), kEndlessBody).status, 201);
  ASSERT_TRUE(wait_for_frames(server, "cam1")) << server.log();
  const std::string since = curl("GET", server.url("/v1/streams/cam1")).json().value("since", "");
  server.process().signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "SIGHUP: no --stream-list, nothing to reload")) << server.process().outcome();
  ASSERT_TRUE(server.process().alive()) << server.process().outcome();
  const json cam1 = curl("GET", server.url("/v1/streams/cam1")).json();
  EXPECT_EQ(cam1.value("state", ""), "running") << cam1.dump();
  EXPECT_EQ(cam1.value("since", ""), since) << "the reload restarted the stream";
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200);
  server.process().signal(SIGTERM);
  const auto [code, seconds] = server.process().wait(time_bound(25));
  EXPECT_EQ(code, 0) << server.log();
  EXPECT_GT(count_frames(server.outputs() / "cam1.mkv"), 0) << "cam1.mkv not finalized\n" << server.log();
}

// The templates are read at start and on SIGHUP, never by a PUT or a restart: a file edited
// on disk changes nothing until the signal, a half-written one is refused then and the last
// good one stays in force, and a template that changed restarts its running streams with it.
// Each PUT below names what the text in force makes it write ('{stream}.mkv', then
// '{stream}-v2.mkv'). Before, every PUT read the file: cam2 was refused 422 (invalid YAML)
// and cam4 wrote cam4-v2.mkv with no signal.
TEST(ServeLifecycle, TemplatesAreReadAtStartAndOnSighupAlone) {
  const std::string v1 = kSmoothTemplate;
  std::string v2 = v1;
  v2.replace(v2.find("'{stream}.mkv'"), std::string("'{stream}.mkv'").size(), "'{stream}-v2.mkv'");
  ServeProcess server("template-reload", {.templates = {{"smooth", v1}}});
  ASSERT_SERVING(server);
  const auto file = server.dir() / "smooth.yaml";
  const auto put = [&](const std::string& name) {
    return curl_with_body("PUT", server.url("/v1/streams/" + name), kEndlessBody);
  };
  const auto writes = [&](const std::string& output) {
    return eventually([&] { return std::filesystem::exists(server.outputs() / output); }, 10);
  };
  ASSERT_EQ(put("cam1").status, 201);
  ASSERT_TRUE(writes("cam1.mkv")) << server.log();

  std::ofstream(file) << "stages:\n  - {id: smooth, type: mean_smooth";  // an edit half done
  const auto during_edit = put("cam2");
  ASSERT_EQ(during_edit.status, 201) << during_edit.body;
  EXPECT_TRUE(writes("cam2.mkv")) << server.log();
  server.process().signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "pipeline template 'smooth' (" + file.string() + ") was not reloaded; the one read "
                                   "before stays in force"))
      << server.log();
  ASSERT_EQ(put("cam3").status, 201);
  EXPECT_TRUE(writes("cam3.mkv")) << server.log();

  std::ofstream(file) << v2;  // the edit done: nothing changes until the signal
  ASSERT_EQ(put("cam4").status, 201);
  EXPECT_TRUE(writes("cam4.mkv")) << server.log();
  EXPECT_FALSE(std::filesystem::exists(server.outputs() / "cam4-v2.mkv"));
  server.process().signal(SIGHUP);
  ASSERT_TRUE(wait_for_log(server, "pipeline template 'smooth' changed")) << server.log();
  for (const char* name : {"cam1", "cam2", "cam3", "cam4"})
    EXPECT_TRUE(writes(std::string(name) + "-v2.mkv")) << name << " did not restart with the new template\n" << server.log();
  ASSERT_EQ(put("cam5").status, 201);
  EXPECT_TRUE(writes("cam5-v2.mkv")) << server.log();
  EXPECT_NE(server.log().find("restarted with their new template: cam1, cam2, cam3, cam4"), std::string::npos)
      << server.log();
}

}  // namespace
}  // namespace fp::test
