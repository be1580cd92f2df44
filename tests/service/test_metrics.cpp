// The metrics exposition built from streams' published stats: every family with its HELP
// and TYPE, `promtool check metrics` clean, a removed stream's series gone, the stage-time
// counter never going down, and no URI or credential in any label.
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>
#include <regex>
#include <string>
#include <vector>

#include "service/metrics.hpp"
#include "service/metrics_server.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/service/installed_program.hpp"
#include "tests/service/promtool.hpp"

namespace fp {
namespace {

StageTiming stage(std::string id, std::string type, std::int64_t frames, double total_ms) {
  StageTiming t;
  t.id = std::move(id);
  t.type = std::move(type);
  t.frames = frames;
  t.total_ms = total_ms;
  return t;
}

// A camera stream as the manager would list it: a source that dropped and reconnected, a
// denoiser, two outputs (one behind).
StreamStatus camera(const std::string& name, StreamState state, double scale = 1.0) {
  StreamStatus s;
  s.name = name;
  s.pipeline = "default";
  s.uri = "rtsp://***@camera.local/stream";  // masked, and still never a label
  s.state = state;
  s.cpu_cores = 0.25 * scale;
  auto source = stage("cam", "decode", 300, 900 * scale);
  source.frames_dropped = 7;
  source.frames_skipped_to_live = 2;
  source.decode_errors.packets = 3;
  source.reconnect = ReconnectStats{};
  source.reconnect->reconnects = 4;
  auto sink_a = stage("archive", "encode", 290, 400 * scale);
  sink_a.output = "/srv/out/" + name + ".mkv";
  auto sink_b = stage("preview", "encode", 280, 100 * scale);
  sink_b.frames_dropped = 5;
  sink_b.output = "srt://user:secret@relay:9000";
  s.stats.stages = {source, stage("denoise", "nlmeans", 293, 1500 * scale), sink_a, sink_b};
  for (double ms : {3.0, 4.0, 12.0, 40.0, 700.0}) s.stats.latency_ms.add(ms);
  s.outputs = {sink_a.output};
  s.reconnects = input_reconnects(s.stats);
  return s;
}

struct Streams {
  std::mutex mutex;
  std::vector<StreamStatus> now;
  std::vector<StreamStatus> get() {
    std::lock_guard lock(mutex);
    return now;
  }
};

service::StreamMetricsSource source_of(Streams& streams) {
  service::StreamMetricsSource source;
  source.version = "1.2.3";
  source.streams = [&streams] { return streams.get(); };
  source.manager = [&streams] {
    ManagerInfo info;
    info.capacity = 8;
    for (const auto& s : streams.get()) ++info.streams_by_state[s.state == StreamState::Running ? "running" : "reconnecting"];
    return info;
  };
  return source;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

TEST(Metrics, EveryFamilyWithHelpAndTypeAndPromtoolClean) {
  SKIP_UNLESS_INSTALLED("promtool", "prometheus");
  Streams streams;
  streams.now = {camera("cam1", StreamState::Running), camera("cam2", StreamState::Reconnecting)};
  service::Metrics metrics(source_of(streams));
  metrics.count_request("/v1/streams/{name}", 201);
  metrics.count_request("/v1/streams/{name}", 201);
  metrics.count_request("/metrics", 200);
  const std::string text = metrics.scrape();

  for (const char* family :
       {"framepipe_build_info", "framepipe_streams", "framepipe_stream_capacity", "framepipe_stream_up",
        "framepipe_stream_state", "framepipe_frames_decoded_total", "framepipe_frames_output_total",
        "framepipe_frames_dropped_total", "framepipe_source_reconnects_total", "framepipe_decode_errors_total",
        "framepipe_frame_latency_seconds", "framepipe_stage_seconds_total", "framepipe_http_requests_total",
        "framepipe_stream_cpu_cores"}) {
    EXPECT_NE(text.find(std::string("# HELP ") + family + " "), std::string::npos) << family << "\n" << text;
    EXPECT_NE(text.find(std::string("# TYPE ") + family + " "), std::string::npos) << family << "\n" << text;
  }
  EXPECT_TRUE(has_line(text, R"(framepipe_build_info{version="1.2.3"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_stream_capacity 8)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_streams{state="running"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_streams{state="failed"} 0)")) << text;  // every state, 0 included
  EXPECT_TRUE(has_line(text, R"(framepipe_stream_up{stream="cam1"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_stream_up{stream="cam2"} 0)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_stream_cpu_cores{stream="cam1"} 0.25)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_stream_state{stream="cam2",state="reconnecting"} 1)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frames_decoded_total{stream="cam1"} 300)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frames_output_total{stream="cam1",output="archive"} 290)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frames_output_total{stream="cam1",output="preview"} 280)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frames_dropped_total{stream="cam1",reason="input_behind"} 7)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frames_dropped_total{stream="cam1",reason="output_behind"} 5)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frames_dropped_total{stream="cam1",reason="skipped_to_live"} 2)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_source_reconnects_total{stream="cam2"} 4)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_decode_errors_total{stream="cam2"} 3)")) << text;
  // Latencies 3, 4, 12, 40, 700 ms: cumulative buckets in seconds, the sum exact.
  EXPECT_TRUE(has_line(text, R"(framepipe_frame_latency_seconds_bucket{stream="cam1",le="0.005"} 2)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frame_latency_seconds_bucket{stream="cam1",le="0.05"} 4)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frame_latency_seconds_bucket{stream="cam1",le="0.5"} 4)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frame_latency_seconds_bucket{stream="cam1",le="1"} 5)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frame_latency_seconds_bucket{stream="cam1",le="+Inf"} 5)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frame_latency_seconds_count{stream="cam1"} 5)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_frame_latency_seconds_sum{stream="cam1"} 0.759)")) << text;
  EXPECT_TRUE(has_line(text, R"(framepipe_stage_seconds_total{stage="nlmeans"} 3)")) << text;  // 1.5 s x 2
  EXPECT_TRUE(has_line(text, R"(framepipe_stage_seconds_total{stage="encode"} 1)")) << text;   // (0.4 + 0.1) x 2
  EXPECT_TRUE(has_line(text, R"(framepipe_http_requests_total{code="201",route="/v1/streams/{name}"} 2)") ||
              has_line(text, R"(framepipe_http_requests_total{route="/v1/streams/{name}",code="201"} 2)"))
      << text;
  // No GPU asked for: no GPU family at all (not an empty or zero one).
  EXPECT_EQ(text.find("framepipe_gpu_memory_used_bytes"), std::string::npos) << text;
  // Labels are names: no URI, path or credential.
  for (const char* leak : {"rtsp", "srt:", "secret", "/srv/out", ".mkv", "camera.local"})
    EXPECT_EQ(text.find(leak), std::string::npos) << leak << "\n" << text;

  test::TempDir dir("metrics_promtool");
  const auto check = test::promtool_check_metrics(text, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << text;
  EXPECT_EQ(check.output, "") << text;
}

TEST(Metrics, RemovedStreamsSeriesDisappearAndStageTimeNeverGoesDown) {
  SKIP_UNLESS_INSTALLED("promtool", "prometheus");
  Streams streams;
  streams.now = {camera("cam1", StreamState::Running), camera("cam2", StreamState::Running)};
  service::Metrics metrics(source_of(streams));
  const std::string before = metrics.scrape();
  ASSERT_TRUE(has_line(before, R"(framepipe_stage_seconds_total{stage="nlmeans"} 3)")) << before;
  ASSERT_NE(before.find(R"(stream="cam2")"), std::string::npos);

  streams.now = {camera("cam1", StreamState::Running, 2.0)};  // cam2 removed; cam1 went on
  const std::string after = metrics.scrape();
  EXPECT_EQ(after.find(R"(stream="cam2")"), std::string::npos) << after;
  // cam1's 3 s now, and cam2's 1.5 s as last seen: 4.5, not 3.
  EXPECT_TRUE(has_line(after, R"(framepipe_stage_seconds_total{stage="nlmeans"} 4.5)")) << after;

  streams.now = {camera("cam1", StreamState::Running, 0.5)};  // cam1 restarted: its time began again
  const std::string restarted = metrics.scrape();
  EXPECT_TRUE(has_line(restarted, R"(framepipe_stage_seconds_total{stage="nlmeans"} 5.25)")) << restarted;

  streams.now = {};
  const std::string empty = metrics.scrape();
  EXPECT_TRUE(has_line(empty, R"(framepipe_stage_seconds_total{stage="nlmeans"} 5.25)")) << empty;
  EXPECT_EQ(empty.find("framepipe_stream_up{"), std::string::npos) << empty;
  test::TempDir dir("metrics_promtool_empty");
  const auto check = test::promtool_check_metrics(empty, dir.path());
  EXPECT_EQ(check.exit_code, 0) << check.output << "\n" << empty;
}

// promtool itself must be able to fail here, or a clean result would mean nothing.
TEST(Metrics, PromtoolRejectsABadExposition) {
  SKIP_UNLESS_INSTALLED("promtool", "prometheus");
  test::TempDir dir("metrics_promtool_bad");
  const auto check = test::promtool_check_metrics(
      "# HELP framepipe_frames counted\n# TYPE framepipe_frames counter\nframepipe_frames 1\n", dir.path());
  EXPECT_NE(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("_total"), std::string::npos) << check.output;
}

TEST(Metrics, AddressForRunMetrics) {
  EXPECT_EQ(service::parse_metrics_address("9464").to_string(), "127.0.0.1:9464");  // a bare port: loopback
  EXPECT_EQ(service::parse_metrics_address("0.0.0.0:9464").to_string(), "0.0.0.0:9464");  // named: as named
  try {
    service::parse_metrics_address("99999");
    FAIL() << "accepted port 99999";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "--metrics 99999: the port must be a number from 0 to 65535");
  }
}

}  // namespace
}  // namespace fp
