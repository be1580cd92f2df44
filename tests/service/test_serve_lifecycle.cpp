// framepipe serve from start to end: its command line (duplicate template names, the
// listening line), and the drain — SIGTERM or POST /v1/drain: /readyz 503 and adds refused,
// every stream finalized, exit 0; a second signal ends it at once.
#include <gtest/gtest.h>

#include <csignal>
#include <thread>

#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

using nlohmann::json;

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

const std::string kEndless = R"({"uri": "testsrc://64x48@30?frames=0"})";

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
    ASSERT_EQ(curl_with_body("PUT", server.url(std::string("/v1/streams/") + name), kEndless).status, 201);
  ASSERT_TRUE(wait_for_frames(server, "cam1") && wait_for_frames(server, "cam2")) << server.log();
  server.process().signal(SIGTERM);
  const auto [code, seconds] = server.process().wait(time_bound(25));
  EXPECT_EQ(code, 0) << server.log();
  EXPECT_LT(seconds, time_bound(20)) << server.log();
  EXPECT_NE(server.log().find("drained"), std::string::npos) << server.log();
  for (const char* name : {"cam1.mkv", "cam2.mkv"})
    EXPECT_GT(count_frames(server.outputs() / name), 0) << name << " not finalized\n" << server.log();
}

TEST(ServeLifecycle, DrainRequestRefusesAddsAndEnds) {
  ServeProcess server("drain-api");
  ASSERT_SERVING(server);
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/cam1"), kEndless).status, 201);
  ASSERT_TRUE(wait_for_frames(server, "cam1")) << server.log();
  const auto drain = curl("POST", server.url("/v1/drain"));
  EXPECT_EQ(drain.status, 202) << drain.body;
  // The server may be gone already (the drain is quick); while it answers, it is not ready
  // and adds nothing.
  const auto ready = curl("GET", server.url("/readyz"));
  if (ready.status != 0) {
    EXPECT_EQ(ready.status, 503) << ready.body;
  }
  const auto put = curl_with_body("PUT", server.url("/v1/streams/cam2"), kEndless);
  if (put.status != 0) {
    EXPECT_EQ(put.status, 503) << put.body;
    EXPECT_EQ(put.json().value("error", ""), "draining") << put.body;
  }
  const auto [code, seconds] = server.process().wait(time_bound(25));
  EXPECT_EQ(code, 0) << server.log();
  EXPECT_GT(count_frames(server.outputs() / "cam1.mkv"), 0) << server.log();
}

TEST(ServeLifecycle, ReadyIsNotAboutCameras) {
  ServeProcess server("ready");
  ASSERT_SERVING(server);
  // A camera that cannot be reached does not make the service unready.
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/dead"), R"({"uri": "rtsp://127.0.0.1:9/none"})").status, 201);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200);
  EXPECT_EQ(curl("GET", server.url("/livez")).status, 200);
}

TEST(ServeLifecycle, SecondSignalEndsAtOnce) {
  ServeProcess server("second-signal", {.drain_timeout = 60});
  ASSERT_SERVING(server);
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/cam1"), kEndless).status, 201);
  ASSERT_TRUE(wait_for_frames(server, "cam1")) << server.log();
  server.process().signal(SIGTERM);
  server.process().signal(SIGTERM);
  const auto [code, seconds] = server.process().wait(time_bound(10));
  EXPECT_EQ(code, 130) << server.log();
  EXPECT_LT(seconds, time_bound(3)) << server.log();
}

}  // namespace
}  // namespace fp::test
