// GET /metrics of a real `framepipe serve`: promtool-clean on a live scrape, following the
// streams added and removed through the API, and scraped by a real Prometheus server that
// sees every stream's output rate.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "tests/service/curl_client.hpp"
#include "tests/service/metrics_scrape.hpp"
#include "tests/service/prometheus_server.hpp"
#include "tests/service/installed_program.hpp"
#include "tests/service/promtool.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

using Clock = std::chrono::steady_clock;

// Camera-like: endless, paced at its frame rate.
constexpr const char* kCameraTemplate = R"(device: cpu
realtime: true
input: testsrc://64x48@25?frames=0
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: archive, type: encode, output: '{stream}.mkv'}
)";

ServeOptions camera_options() {
  ServeOptions options;
  options.templates = {{"camera", kCameraTemplate}};
  return options;
}

int add_stream(ServeProcess& server, const std::string& name) {
  return curl_with_body("PUT", server.url("/v1/streams/" + name), R"({"pipeline": "camera", "uri": "testsrc://64x48@25?frames=0"})").status;
}

std::string scrape(ServeProcess& server) { return curl("GET", server.url("/metrics")).body; }

std::string output_series(const std::string& stream) {
  return R"(framepipe_frames_output_total{stream=")" + stream + R"(",output="archive"})";
}

// Scrapes until `done` holds for a scrape (or `seconds` pass): the last scrape.
template <typename Done>
std::string scrape_until(ServeProcess& server, double seconds, Done done) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(time_bound(seconds));
  std::string text = scrape(server);
  while (!done(text) && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    text = scrape(server);
  }
  return text;
}

TEST(ServeMetrics, LiveScrapeIsPromtoolCleanAndFollowsTheStreams) {
  SKIP_UNLESS_INSTALLED("promtool", "prometheus");
  ServeProcess server("serve-metrics", camera_options());
  ASSERT_TRUE(server.ready()) << server.failure();
  ASSERT_EQ(add_stream(server, "cam1"), 201) << server.log();
  ASSERT_EQ(add_stream(server, "cam2"), 201) << server.log();

  const std::string text = scrape_until(server, 20, [](const std::string& t) {
    // A second's frames, and the graph thread's stage times published.
    return sample_value(t, output_series("cam1")).value_or(0) >= 25 &&
           sample_value(t, output_series("cam2")).value_or(0) >= 25 &&
           sample_value(t, R"(framepipe_stage_seconds_total{stage="mean_smooth"})").value_or(0) > 0;
  });
  EXPECT_GE(sample_value(text, output_series("cam1")).value_or(0), 25) << text;
  EXPECT_GE(sample_value(text, output_series("cam2")).value_or(0), 25) << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_stream_up{stream="cam1"})"), 1.0) << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_streams{state="running"})"), 2.0) << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_streams{state="failed"})"), 0.0) << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_http_requests_total{code="201",route="/v1/streams/{name}"})"), 2.0)
      << text;
  EXPECT_GT(sample_value(text, R"(framepipe_stage_seconds_total{stage="mean_smooth"})").value_or(0), 0) << text;
  EXPECT_EQ(text.find("testsrc"), std::string::npos) << text;  // no URI as a label
  const auto check = promtool_check_metrics(text, server.dir());
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << text;
  EXPECT_EQ(check.output, "") << text;

  // cam2 removed: its series go; the stage time summed over streams does not go down.
  const double smooth_before =
      sample_value(scrape(server), R"(framepipe_stage_seconds_total{stage="mean_smooth"})").value_or(0);
  ASSERT_EQ(curl("DELETE", server.url("/v1/streams/cam2")).status, 202);
  const std::string after = scrape_until(server, 20, [](const std::string& t) {
    return t.find(R"(stream="cam2")") == std::string::npos;
  });
  EXPECT_EQ(after.find(R"(stream="cam2")"), std::string::npos) << after;
  EXPECT_NE(after.find(R"(stream="cam1")"), std::string::npos) << after;
  EXPECT_GE(sample_value(after, R"(framepipe_stage_seconds_total{stage="mean_smooth"})").value_or(0), smooth_before)
      << after;
  const auto check_after = promtool_check_metrics(after, server.dir());
  EXPECT_EQ(check_after.exit_code, 0) << check_after.output << "\n" << after;
}

// serve --stream-list: the list's, the shard's and the cap's families are promtool-clean,
// say what the list holds, and carry no URI (the list's have passwords).
TEST(ServeMetrics, StreamListFamiliesArePromtoolClean) {
  SKIP_UNLESS_INSTALLED("promtool", "prometheus");
  ServeOptions options = camera_options();
  TempDir dir("serve-metrics-list");
  std::ofstream(dir / "streams.yaml") << "streams:\n"
                                         "  - {name: cam1, uri: 'testsrc://64x48@25?frames=0'}\n"
                                         "  - {name: cam2, uri: 'testsrc://64x48@25?frames=0'}\n"
                                         "  - {name: cam3, uri: 'rtsp://admin:hunter2@127.0.0.1:1/x', pipeline: nosuch}\n";
  options.extra_args = {"--stream-list", (dir / "streams.yaml").string(), "--max-streams", "1"};
  ServeProcess server("serve-metrics-list", options);
  ASSERT_TRUE(server.ready()) << server.failure();
  const std::string text = scrape_until(server, 20, [](const std::string& t) {
    return sample_value(t, "framepipe_streams_waiting_for_capacity").value_or(0) == 1;
  });
  EXPECT_EQ(sample_value(text, R"(framepipe_stream_list_streams{scope="listed"})"), 3.0) << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_stream_list_streams{scope="assigned"})"), 3.0) << text;
  EXPECT_EQ(sample_value(text, "framepipe_stream_list_rejected"), 1.0) << text;  // cam3's template
  EXPECT_EQ(sample_value(text, "framepipe_streams_waiting_for_capacity"), 1.0) << text;  // cam2, over the cap
  EXPECT_EQ(sample_value(text, R"(framepipe_stream_list_reads_total{result="ok"})"), 1.0) << text;
  EXPECT_EQ(sample_value(text, "framepipe_shard_replicas"), 1.0) << text;
  EXPECT_EQ(text.find("hunter2"), std::string::npos) << text;
  EXPECT_EQ(text.find("rtsp"), std::string::npos) << text;
  EXPECT_EQ(server.log().find("hunter2"), std::string::npos) << server.log();
  const auto check = promtool_check_metrics(text, server.dir());
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << text;
  EXPECT_EQ(check.output, "") << text;
}

// The streams whose output rate Prometheus reports above 0 (from a query's JSON).
TEST(ServeMetrics, PrometheusScrapesServeAndSeesEveryStreamsOutputRate) {
  SKIP_UNLESS_INSTALLED("prometheus", "prometheus");
  ServeProcess server("serve-metrics-prometheus", camera_options());
  ASSERT_TRUE(server.ready()) << server.failure();
  ASSERT_EQ(add_stream(server, "cam1"), 201) << server.log();
  ASSERT_EQ(add_stream(server, "cam2"), 201) << server.log();

  PrometheusServer prometheus(server.dir(), {"127.0.0.1:" + std::to_string(server.port())});
  ASSERT_TRUE(prometheus.ready()) << prometheus.log();
  std::string response;
  const auto flowing = prometheus.wait_for_streams("rate(framepipe_frames_output_total[5s]) > 0", 2, 40, &response);
  EXPECT_EQ(flowing, (std::set<std::string>{"cam1", "cam2"})) << response << "\n" << prometheus.log();
  // The target is up, and the alert rules' inputs are there.
  EXPECT_EQ(prometheus.streams_of("framepipe_stream_up == 1"), (std::set<std::string>{"cam1", "cam2"}));
}

}  // namespace
}  // namespace fp::test
