// `framepipe run --metrics ADDR`: a batch run serves the same /metrics as serve, read with
// real curl, checked by real promtool and scraped by a real Prometheus server.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/service/metrics_scrape.hpp"
#include "tests/service/prometheus_server.hpp"
#include "tests/service/installed_program.hpp"
#include "tests/service/promtool.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

using Clock = std::chrono::steady_clock;

// Two endless camera-like streams, paced at their frame rate.
void write_two_streams(const TempDir& dir) {
  std::ofstream(dir / "p.yaml") << "realtime: true\n"
                                   "inputs:\n"
                                   "  - {uri: 'testsrc://64x48@25?frames=0', name: front}\n"
                                   "  - {uri: 'testsrc://64x48@25?frames=0', name: side}\n"
                                   "stages:\n"
                                   "  - {id: archive, type: encode, output: '{stream}.mkv'}\n";
}

std::string metrics_url(int port) { return "http://127.0.0.1:" + std::to_string(port) + "/metrics"; }

// Scrapes until both streams run and have written a second's frames (or `seconds` pass):
// the last scrape.
std::string scrape_until_frames_flow(int port, double seconds) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(time_bound(seconds));
  std::string text;
  while (Clock::now() < deadline) {
    text = curl_get(metrics_url(port)).output;
    const auto front = sample_value(text, R"(framepipe_frames_output_total{stream="front",output="archive"})");
    const auto side = sample_value(text, R"(framepipe_frames_output_total{stream="side",output="archive"})");
    // A second's frames each, both counted as running, and an earlier scrape counted.
    if (front.value_or(0) >= 25 && side.value_or(0) >= 25 &&
        sample_value(text, R"(framepipe_streams{state="running"})") == 2.0 &&
        sample_value(text, R"(framepipe_http_requests_total{code="200",route="/metrics"})").value_or(0) > 0)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return text;
}

TEST(RunMetricsCli, ServesPromtoolCleanMetricsWhileTheRunLasts) {
  SKIP_UNLESS_INSTALLED("promtool", "prometheus");
  TempDir dir("run-metrics");
  write_two_streams(dir);
  BackgroundRun run(dir.path(), {"run", "p.yaml", "--device", "cpu", "--metrics", "127.0.0.1:0"});
  const int port = printed_metrics_port(run, 20);
  ASSERT_GT(port, 0) << run.output();

  const std::string text = scrape_until_frames_flow(port, 20);
  EXPECT_GE(sample_value(text, R"(framepipe_frames_output_total{stream="front",output="archive"})").value_or(0), 25)
      << text;
  EXPECT_GT(sample_value(text, R"(framepipe_frames_decoded_total{stream="side"})").value_or(0), 0) << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_stream_up{stream="front"})"), 1.0) << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_streams{state="running"})"), 2.0) << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_stream_capacity)"), 2.0) << text;
  EXPECT_GT(sample_value(text, R"(framepipe_frame_latency_seconds_count{stream="side"})").value_or(0), 0) << text;
  EXPECT_GT(sample_value(text, R"(framepipe_stage_seconds_total{stage="encode"})").value_or(0), 0) << text;
  EXPECT_NE(text.find("framepipe_build_info{version=\""), std::string::npos) << text;
  // Its own scrapes are counted by route.
  EXPECT_GT(sample_value(text, R"(framepipe_http_requests_total{code="200",route="/metrics"})").value_or(0), 0)
      << text;
  // The inputs' URIs and the outputs' paths are no label.
  EXPECT_EQ(text.find("testsrc"), std::string::npos) << text;
  EXPECT_EQ(text.find(".mkv"), std::string::npos) << text;

  const auto check = promtool_check_metrics(text, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << text;
  EXPECT_EQ(check.output, "") << text;

  run.signal(SIGINT);
  const auto [code, took] = run.wait(time_bound(15));
  EXPECT_EQ(code, 130) << run.output();
  // The listener went with the run.
  EXPECT_NE(curl_get(metrics_url(port), 2).exit_code, 0);
}

TEST(RunMetricsCli, ABadOrTakenAddressFailsBeforeAnythingRuns) {
  TempDir dir("run-metrics-bad");
  std::ofstream(dir / "p.yaml") << "input: testsrc://64x48@25?frames=5\n"
                                   "stages:\n"
                                   "  - {id: out, type: encode, output: out.mkv}\n";
  const auto bad = run_framepipe_with_timeout({"run", "p.yaml", "--metrics", "99999"}, dir.path(), 30);
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--metrics 99999: the port must be a number from 0 to 65535"), std::string::npos)
      << bad.output;

  // A port another socket listens on.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  ASSERT_EQ(listen(fd, 1), 0);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
  const std::string taken = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
  const auto busy = run_framepipe_with_timeout({"run", "p.yaml", "--metrics", taken}, dir.path(), 30);
  close(fd);
  EXPECT_EQ(busy.exit_code, 1) << busy.output;
  EXPECT_NE(busy.output.find("--metrics: cannot listen on " + taken), std::string::npos) << busy.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.mkv")) << "the run started";
}

// A single-stream run: one stream named after the file, finished at the end.
TEST(RunMetricsCli, ASingleStreamRunIsNamedAfterItsFile) {
  TempDir dir("run-metrics-one");
  std::ofstream(dir / "camera.yaml") << "realtime: true\n"
                                        "input: testsrc://64x48@25?frames=0\n"
                                        "stages:\n"
                                        "  - {id: out, type: encode, output: out.mkv}\n";
  BackgroundRun run(dir.path(), {"run", "camera.yaml", "--device", "cpu", "--metrics", "0"});
  const int port = printed_metrics_port(run, 20);
  ASSERT_GT(port, 0) << run.output();
  EXPECT_NE(run.output().find("metrics on http://127.0.0.1:"), std::string::npos) << run.output();  // a bare port: loopback
  const auto deadline = Clock::now() + std::chrono::duration<double>(time_bound(20));
  std::string text;
  while (Clock::now() < deadline) {
    text = curl_get(metrics_url(port)).output;
    if (sample_value(text, R"(framepipe_frames_output_total{stream="camera",output="out"})").value_or(0) > 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_GT(sample_value(text, R"(framepipe_frames_output_total{stream="camera",output="out"})").value_or(0), 0)
      << text;
  EXPECT_EQ(sample_value(text, R"(framepipe_stream_capacity)"), 1.0) << text;
  run.signal(SIGINT);
  EXPECT_EQ(run.wait(time_bound(15)).first, 130) << run.output();
}

// The streams whose output rate Prometheus reports above 0 (from a query's JSON).
TEST(RunMetricsCli, PrometheusScrapesTheRunAndSeesEveryStreamsOutput) {
  SKIP_UNLESS_INSTALLED("prometheus", "prometheus");
  TempDir dir("run-metrics-prometheus");
  write_two_streams(dir);
  BackgroundRun run(dir.path(), {"run", "p.yaml", "--device", "cpu", "--metrics", "127.0.0.1:0"});
  const int port = printed_metrics_port(run, 20);
  ASSERT_GT(port, 0) << run.output();

  PrometheusServer prometheus(dir.path(), {"127.0.0.1:" + std::to_string(port)});
  ASSERT_TRUE(prometheus.ready()) << prometheus.log();
  std::string response;
  const auto flowing = prometheus.wait_for_streams("rate(framepipe_frames_output_total[5s]) > 0", 2, 40, &response);
  EXPECT_EQ(flowing, (std::set<std::string>{"front", "side"})) << response << "\n" << prometheus.log();
  const auto up = prometheus.query("up{job=\"framepipe\"}");
  EXPECT_NE(up.find("\"value\":["), std::string::npos) << up;
  run.signal(SIGINT);
  EXPECT_EQ(run.wait(time_bound(15)).first, 130) << run.output();
}

}  // namespace
}  // namespace fp::test
