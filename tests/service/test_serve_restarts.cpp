// A camera that is off when its stream is added, or when the service comes back after a
// power cut, is tried again until it comes up: a real `framepipe serve` and a real RTSP
// server (GStreamer's, tests/live/rtsp_server.py) started 10 s later. The stream shows
// `reconnecting` with its error meanwhile, never `failed`, and its restarts are counted in
// the API and in /metrics. Then serve's --restart-wait/--restart-wait-max: the waits as the
// stream reports them grow from the first to the longest. No duration is asserted: every
// wait is bounded (time_bound) and the waits are read from what the service says.
#include <gtest/gtest.h>

#include <csignal>
#include <map>
#include <regex>
#include <set>
#include <thread>
#include <vector>

#include "tests/live/rtsp_server.hpp"
#include "tests/service/curl_client.hpp"
#include "tests/service/metrics_scrape.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/text_files.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

constexpr std::chrono::milliseconds kPoll{50};
// The time a camera takes to boot after the power comes back, as the issue puts it.
constexpr auto kCameraBoot = 10s;

constexpr const char* kCameraTemplate = R"(device: cpu
realtime: true
input: testsrc://64x48@30?frames=0
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mkv', preset: ultrafast}
)";

ServeOptions camera_options(std::vector<std::string> extra = {}) {
  ServeOptions options;
  options.templates = {{"camera", kCameraTemplate}};
  options.extra_args = std::move(extra);
  return options;
}

json stream(const ServeProcess& server, const std::string& name) {
  const auto reply = curl("GET", server.url("/v1/streams/" + name));
  return reply.status == 200 ? reply.json() : json::object();
}

std::string put_camera(const ServeProcess& server, const std::string& name, const std::string& uri, int* status) {
  const auto reply = curl_with_body("PUT", server.url("/v1/streams/" + name), json{{"uri", uri}}.dump());
  *status = reply.status;
  return reply.body;
}

// Watches the stream for `how_long`: the states it showed, and its last_error while
// reconnecting (empty if it never showed one).
struct Watched {
  std::set<std::string> states;
  std::string reconnecting_error;
};
Watched watch(const ServeProcess& server, const std::string& name, std::chrono::seconds how_long) {
  Watched seen;
  const auto until = std::chrono::steady_clock::now() + how_long;
  while (std::chrono::steady_clock::now() < until) {
    const json s = stream(server, name);
    const std::string state = s.value("state", "");
    seen.states.insert(state);
    if (state == "reconnecting" && s.contains("last_error") && s["last_error"].is_string())
      seen.reconnecting_error = s["last_error"];
    std::this_thread::sleep_for(kPoll);
  }
  return seen;
}

bool runs(const ServeProcess& server, const std::string& name) {
  // The defaults' waits (5 s, then 10 s) after the camera's boot, and its first frames.
  return eventually(
      [&] {
        const json s = stream(server, name);
        return s.value("state", "") == "running" && s.value("frames", 0LL) > 0;
      },
      40, kPoll);
}

TEST(ServeStreamsRestarted, ACameraOffWhenAddedRunsOnceItComesUp) {
  FP_REQUIRE_RTSP_SERVER();
  RtspServer camera;  // its port, kept for when it comes up
  camera.kill();
  ServeProcess server("camera-late", camera_options());  // the default waits: 5 s, then 10 s
  ASSERT_SERVING(server);
  int status = 0;
  const std::string body = put_camera(server, "gate", camera.uri(), &status);
  ASSERT_EQ(status, 201) << body;

  const Watched off = watch(server, "gate", kCameraBoot);
  EXPECT_FALSE(off.states.contains("failed")) << server.log();
  EXPECT_TRUE(off.states.contains("reconnecting")) << server.log();
  EXPECT_NE(off.reconnecting_error.find("127.0.0.1"), std::string::npos) << off.reconnecting_error;

  camera.start();
  ASSERT_TRUE(runs(server, "gate")) << stream(server, "gate").dump() << "\n" << server.log();
  const json gate = stream(server, "gate");
  EXPECT_GE(gate.value("restarts", 0), 1) << gate.dump();
  EXPECT_TRUE(gate["next_restart"].is_null()) << gate.dump();
  const std::string metrics = curl("GET", server.url("/metrics")).body;
  const auto restarts = sample_value(metrics, R"(framepipe_stream_restarts_total{stream="gate"})");
  ASSERT_TRUE(restarts.has_value()) << metrics;
  EXPECT_EQ(*restarts, gate.value("restarts", 0.0));
}

// A camera lost beyond its input's own reconnects fails its run, and the stream is started
// again once it is back: the new run writes beside the failed run's file (gate~N.mkv), which
// stays whole and finalized, and the state file is left as it was (a restart is no change
// of what should run: neither rewritten nor touched).
TEST(ServeStreamsRestarted, ARestartedCameraWritesBesideTheFailedRunsFileAndLeavesTheStateAlone) {
  FP_REQUIRE_RTSP_SERVER();
  RtspServer camera;
  TempDir kept("restart-beside-state");
  const auto state = kept / "streams.json";
  ServeProcess server("restart-beside", camera_options({"--state", state.string(), "--restart-wait", "0.5"}));
  ASSERT_SERVING(server);
  const json body = {{"uri", camera.uri()}, {"decode", {{"reconnect.attempts", 0}, {"timeout_ms", 1000}}}};
  const auto put = curl_with_body("PUT", server.url("/v1/streams/gate"), body.dump());
  ASSERT_EQ(put.status, 201) << put.body;
  ASSERT_TRUE(runs(server, "gate")) << stream(server, "gate").dump() << "\n" << server.log();
  std::this_thread::sleep_for(500ms);  // a few more frames in the first file
  const std::string saved = read_text(state);
  const auto saved_at = std::filesystem::last_write_time(state);

  camera.kill();
  ASSERT_TRUE(eventually([&] { return stream(server, "gate").value("restarts", 0) >= 1; }, 20, kPoll))
      << stream(server, "gate").dump() << "\n" << server.log();
  camera.start();
  ASSERT_TRUE(runs(server, "gate")) << stream(server, "gate").dump() << "\n" << server.log();
  const json gate = stream(server, "gate");
  ASSERT_EQ(gate["outputs"].size(), 1u) << gate.dump();
  // Beside it: gate~N.mkv, N counting the runs started since (one that found the camera
  // still down took a number too).
  const std::string written = std::filesystem::path(gate["outputs"][0].get<std::string>()).filename().string();
  EXPECT_TRUE(std::regex_match(written, std::regex(R"(gate~[1-9][0-9]*\.mkv)"))) << gate.dump();
  EXPECT_GT(count_frames(server.outputs() / "gate.mkv"), 0) << "the failed run's file is not a finalized video";
  EXPECT_EQ(read_text(state), saved) << "a restart rewrote the state file";
  EXPECT_EQ(std::filesystem::last_write_time(state), saved_at) << "a restart wrote the state file";
}

// After a power cut the service comes back before its camera: the stream restored from
// --state goes through the same retries and runs once the camera is up.
TEST(ServeStreamsRestarted, AfterARestartWithStateTheCameraRunsOnceItComesUp) {
  FP_REQUIRE_RTSP_SERVER();
  RtspServer camera;
  TempDir state_dir("serve-restart-state");
  const std::string state = (state_dir / "state.json").string();
  {
    ServeProcess before("power-cut-before", camera_options({"--state", state}));
    ASSERT_SERVING(before);
    int status = 0;
    const std::string body = put_camera(before, "gate", camera.uri(), &status);
    ASSERT_EQ(status, 201) << body;
    ASSERT_TRUE(runs(before, "gate")) << before.log();
    // The power cut: both go at once.
    before.process().signal(SIGKILL);
    camera.kill();
    EXPECT_EQ(before.process().wait(time_bound(10)).first, -2);
  }
  ServeProcess after("power-cut-after", camera_options({"--state", state}));
  ASSERT_SERVING(after);
  const Watched off = watch(after, "gate", kCameraBoot);
  EXPECT_FALSE(off.states.contains("failed")) << after.log();
  EXPECT_TRUE(off.states.contains("reconnecting")) << after.log();

  camera.start();
  ASSERT_TRUE(runs(after, "gate")) << stream(after, "gate").dump() << "\n" << after.log();
  EXPECT_GE(stream(after, "gate").value("restarts", 0), 1);
}

// A camera that failed waits to be started again (reconnecting, next_restart set): a PUT of
// the same spec then is no change (200, not 201) and leaves the wait as it was, neither
// starting it at once nor putting its next start off; only a failed stream is started again
// by asking for it again (README).
TEST(ServeStreamsRestarted, TheSameSpecPutWhileAStreamWaitsToRestartChangesNothing) {
  ServeProcess server("restart-same-put", camera_options({"--restart-wait", "30"}));
  ASSERT_SERVING(server);
  int status = 0;
  const std::string uri = "rtsp://127.0.0.1:1/live";
  ASSERT_EQ((put_camera(server, "gate", uri, &status), status), 201);
  json waiting;
  ASSERT_TRUE(eventually([&] {
    waiting = stream(server, "gate");
    return waiting.value("next_restart", json()).is_string();
  }, 20)) << waiting.dump() << "\n" << server.log();
  const std::string body = put_camera(server, "gate", uri, &status);
  EXPECT_EQ(status, 200) << body;
  const json after = stream(server, "gate");
  EXPECT_EQ(after.value("state", ""), "reconnecting") << after.dump();
  EXPECT_EQ(after.value("restarts", -1), waiting.value("restarts", -2)) << after.dump();
  EXPECT_EQ(after.value("next_restart", json()), waiting["next_restart"]) << after.dump();
}

// The test knob: --restart-wait 0.2 --restart-wait-max 0.4. The waits grow from the first to
// the longest, as the log says each one ("starting it again in 0.2 s (restart 1)"): the log
// holds every wait, where polling the API (a curl a sample, tens of ms on a loaded box) could
// miss a 0.2 s window. The wait the API reports while the stream waits (restart_wait_s) is
// the log's for the restart it waits for.
TEST(ServeStreamsRestarted, TheWaitsGrowFromRestartWaitToRestartWaitMax) {
  ServeProcess server("restart-waits", camera_options({"--restart-wait", "0.2", "--restart-wait-max", "0.4"}));
  ASSERT_SERVING(server);
  int status = 0;
  const std::string body = put_camera(server, "gate", "rtsp://127.0.0.1:1/live", &status);
  ASSERT_EQ(status, 201) << body;
  std::map<long long, double> reported;  // restarts so far -> the wait the API said before the next
  ASSERT_TRUE(eventually(
      [&] {
        const json s = stream(server, "gate");
        EXPECT_NE(s.value("state", ""), "failed") << s.dump();
        if (s.contains("restart_wait_s") && s["restart_wait_s"].is_number())
          reported[s.value("restarts", 0LL)] = s["restart_wait_s"].get<double>();
        return !reported.empty() && server.log().find("(restart 3)") != std::string::npos;
      },
      20, std::chrono::milliseconds(20)))
      << ::testing::PrintToString(reported) << "\n" << server.log();
  static const std::regex said(R"(stream gate: failed: [^\n]*; starting it again in ([0-9.]+) s \(restart ([0-9]+)\))");
  std::map<long long, double> logged;  // restart N -> the wait before it
  const std::string log = server.log();
  for (auto it = std::sregex_iterator(log.begin(), log.end(), said); it != std::sregex_iterator(); ++it)
    logged[std::stoll((*it)[2])] = std::stod((*it)[1]);
  logged.erase(logged.upper_bound(3), logged.end());
  EXPECT_EQ(logged, (std::map<long long, double>{{1, 0.2}, {2, 0.4}, {3, 0.4}})) << log;
  for (const auto& [restarts, wait] : reported)
    if (logged.contains(restarts + 1)) {
      EXPECT_EQ(wait, logged.at(restarts + 1)) << "after " << restarts << " restarts";
    }

  // A longest wait shorter than the first is a usage error.
  const auto bad = run_framepipe_with_timeout([&] {
    auto args = std::vector<std::string>{"serve"};
    for (const auto& file : write_templates(server.dir(), {{"camera", kCameraTemplate}})) args.push_back(file);
    args.insert(args.end(), {"--listen", "127.0.0.1:0", "--restart-wait", "10", "--restart-wait-max", "5"});
    return args;
  }(), server.dir(), static_cast<int>(time_bound(30)));  // a serve that took them would run on: bounded
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--restart-wait-max 5: must be at least --restart-wait (10)"), std::string::npos)
      << bad.output;
}

}  // namespace
}  // namespace fp::test
