// framepipe's network and streaming outputs, received by real programs on loopback and read
// back with ffprobe: MPEG-TS over UDP and SRT (ffmpeg listening), RTSP publish (GStreamer's
// rtsp-server in record mode), HLS (a playlist ffprobe plays). Failures too: nobody
// listening, a receiver that goes away mid-run, Ctrl-C while a server stays silent. Every
// run is bounded in time.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>

#include <chrono>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/e2e/silent_server.hpp"
#include "tests/live/loopback_port.hpp"
#include "tests/live/rtsp_server.hpp"
#include "tests/live/stream_receiver.hpp"
#include "tests/ffmpeg_muxers.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr int kFps = 25;

// testsrc `frames` at 25 fps into each output (the first is fed by the input, the others too).
void write_pipeline(const TempDir& dir, int frames, const std::vector<std::string>& outputs,
                    const std::string& extra = "") {
  std::ofstream out(dir / "p.yaml");
  out << "input: testsrc://320x240@" << kFps << "?frames=" << frames << "\n" << extra << "stages:\n";
  for (std::size_t i = 0; i < outputs.size(); ++i)
    out << "  - {id: out" << i << ", type: encode, input: input, output: '" << outputs[i] << "'}\n";
}

void expect_h264_320x240(const std::filesystem::path& media) {
  const auto stream = ffprobe_video(media);
  ASSERT_FALSE(stream.is_null()) << "ffprobe cannot read " << media;
  EXPECT_EQ(stream["codec_name"], "h264");
  EXPECT_EQ(stream["width"], 320);
  EXPECT_EQ(stream["height"], 240);
}

// ffmpeg receiving MPEG-TS on `url` into `file`, copied as it comes.
std::unique_ptr<BackgroundRun> start_receiver(const TempDir& dir, const std::string& url, const std::string& file) {
  return std::make_unique<BackgroundRun>(
      dir.path(), "ffmpeg",
      std::vector<std::string>{"-hide_banner", "-loglevel", "error", "-y", "-i", url, "-c", "copy", "-f", "mpegts", file},
      "receiver.log");
}

TEST(NetworkOutput, UdpStreamIsPacedAndReceivedWhole) {
  FP_REQUIRE_FFMPEG_PROGRAMS();
  TempDir dir("netout-udp");
  const int port = free_loopback_port(SOCK_DGRAM);
  // The receiver ends 3 s after the last datagram; a queue for a slow start.
  auto receiver = start_receiver(
      dir, "udp://127.0.0.1:" + std::to_string(port) + "?timeout=3000000&fifo_size=100000&overrun_nonfatal=1", "recv.ts");
  ASSERT_TRUE(wait_for_udp_port(port, time_bound(10))) << receiver->output();
  write_pipeline(dir, 50, {"udp://127.0.0.1:" + std::to_string(port)});
  const auto started = Clock::now();
  const auto result = run_framepipe_with_timeout({"run", "p.yaml"}, dir.path(), static_cast<int>(time_bound(30)));
  const double took = std::chrono::duration<double>(Clock::now() - started).count();
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("sent udp://127.0.0.1:" + std::to_string(port)), std::string::npos) << result.output;
  // A network output paces the file at its frame rate, as `ffmpeg -re` would: 50 frames at
  // 25 fps take two seconds, not the few milliseconds of encoding them.
  EXPECT_GE(took, 1.8);
  ASSERT_EQ(receiver->wait(time_bound(20)).first, 0) << receiver->output();
  expect_h264_320x240(dir / "recv.ts");
  EXPECT_EQ(ffprobe_frame_count(dir / "recv.ts"), 50);
}

TEST(NetworkOutput, SrtCallerReachesAListenerWithEveryFrame) {
  FP_REQUIRE_FFMPEG_PROGRAMS();
  if (const auto why = missing_protocol("srt"); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("netout-srt");
  const int port = free_loopback_port(SOCK_DGRAM);
  auto receiver = start_receiver(dir, "srt://127.0.0.1:" + std::to_string(port) + "?mode=listener", "recv.ts");
  ASSERT_TRUE(wait_for_udp_port(port, time_bound(10))) << receiver->output();
  write_pipeline(dir, 50, {"srt://127.0.0.1:" + std::to_string(port)});
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), static_cast<int>(time_bound(30)));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  // The listener's input ends when framepipe hangs up.
  ASSERT_EQ(receiver->wait(time_bound(20)).first, 0) << receiver->output();
  expect_h264_320x240(dir / "recv.ts");
  // Including the last frames, which x264 hands over only at the end: closing lingers until
  // the receiver has them.
  EXPECT_EQ(ffprobe_frame_count(dir / "recv.ts"), 50);
}

TEST(NetworkOutput, SrtWithoutAListenerIsAClearErrorAndTheFileOutputIsWhole) {
  FP_REQUIRE_FFMPEG_PROGRAMS();
  if (const auto why = missing_protocol("srt"); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("netout-srt-nobody");
  write_pipeline(dir, 30, {"srt://127.0.0.1:" + std::to_string(free_loopback_port(SOCK_DGRAM)), "keep.mp4"});
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), static_cast<int>(time_bound(30)));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("out0: srt://127.0.0.1:"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("no SRT listener answered"), std::string::npos) << result.output;
  EXPECT_EQ(count_frames(dir / "keep.mp4"), 30);
}

TEST(NetworkOutput, RtspPublishReachesARecordingServer) {
  FP_REQUIRE_RTSP_SERVER();
  FP_REQUIRE_FFMPEG_PROGRAMS();
  TempDir dir("netout-rtsp");
  RtspServer server({.path = "/live", .record_to = (dir / "recv.h264").string()});
  write_pipeline(dir, 75, {server.uri()});
  const auto result = run_framepipe_with_timeout({"run", "p.yaml"}, dir.path(), static_cast<int>(time_bound(30)));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("sent " + server.uri()), std::string::npos) << result.output;
  ASSERT_TRUE(wait_until_file_settles(dir / "recv.h264", 300, time_bound(10)));
  expect_h264_320x240(dir / "recv.h264");
  EXPECT_EQ(ffprobe_frame_count(dir / "recv.h264"), 75);
}

// testsrc `frames` at 25 fps published to `uri` (out0, with `publish_options`) and written to
// keep.mp4 (out1).
void write_publish_and_file_pipeline(const TempDir& dir, int frames, const std::string& uri,
                                     const std::string& publish_options) {
  std::ofstream(dir / "p.yaml") << "input: testsrc://320x240@25?frames=" << frames << "\n"
                                << "stages:\n"
                                << "  - {id: out0, type: encode, input: input, output: '" << uri << "', "
                                << publish_options << "}\n"
                                << "  - {id: out1, type: encode, input: input, output: keep.mp4}\n";
}

// With reconnecting off, a server that goes away fails that output alone.
TEST(NetworkOutput, RtspServerGoneMidRunFailsOnlyThatOutput) {
  FP_REQUIRE_RTSP_SERVER();
  TempDir dir("netout-rtsp-gone");
  RtspServer server({.path = "/live", .record_to = (dir / "recv.h264").string()});
  write_publish_and_file_pipeline(dir, 125, server.uri(), "reconnect: {attempts: 0}");  // 5 s, paced
  BackgroundRun run(dir.path(), {"run", "p.yaml", "-q"});
  std::this_thread::sleep_for(2s);
  server.kill();
  const auto [code, seconds] = run.wait(time_bound(30));
  EXPECT_EQ(code, 1) << run.output();
  EXPECT_NE(run.output().find("out0: " + server.uri() + ": cannot write"), std::string::npos) << run.output();
  EXPECT_NE(run.output().find("the other outputs go on"), std::string::npos) << run.output();
  EXPECT_EQ(count_frames(dir / "keep.mp4"), 125);  // the file output lost nothing
}

// The server restarts (a relay that is updated, a recorder that crashed): the output
// connects again and the stream goes on, starting with a key frame; the run ends well.
TEST(NetworkOutput, RtspServerRestartedMidRunGetsTheStreamAgain) {
  FP_REQUIRE_RTSP_SERVER();
  FP_REQUIRE_FFMPEG_PROGRAMS();
  TempDir dir("netout-rtsp-restart");
  RtspServer server({.path = "/live", .record_to = (dir / "recv.h264").string()});
  write_publish_and_file_pipeline(dir, 200, server.uri(), "reconnect: {initial_ms: 200, max_ms: 500}");  // 8 s
  BackgroundRun run(dir.path(), {"run", "p.yaml", "--stats-json", "stats.json"});
  std::this_thread::sleep_for(2s);
  server.kill();
  std::filesystem::remove(dir / "recv.h264");  // what arrives from now on is the second session's
  std::this_thread::sleep_for(1s);
  server.start();
  const auto [code, seconds] = run.wait(time_bound(30));
  ASSERT_EQ(code, 0) << run.output();
  EXPECT_NE(run.output().find(server.uri() + ": stream lost ("), std::string::npos) << run.output();
  EXPECT_NE(run.output().find(server.uri() + ": stream back after a gap of"), std::string::npos) << run.output();
  EXPECT_EQ(count_frames(dir / "keep.mp4"), 200);  // the file output lost nothing meanwhile
  // The second session: from the key frame the output restarted with to the end (~4 s).
  ASSERT_TRUE(wait_until_file_settles(dir / "recv.h264", 300, time_bound(10)));
  expect_h264_320x240(dir / "recv.h264");
  EXPECT_GT(ffprobe_frame_count(dir / "recv.h264"), 50);
  const auto stats = nlohmann::json::parse(read_text(dir / "stats.json"));
  const auto& out0 = stats["stages"][1];
  ASSERT_EQ(out0["id"], "out0");
  ASSERT_TRUE(out0.contains("reconnect")) << out0.dump();
  EXPECT_EQ(out0["reconnect"]["reconnects"], 1);
  EXPECT_GT(out0["reconnect"]["total_gap_ms"].get<double>(), 500.0);
}

// Ctrl-C while the output waits for its server to come back: the run ends at once with 130
// (a receiver that is away is not a failure), the file output finalized.
TEST(NetworkOutput, CtrlCWhileAnOutputIsReconnectingExitsAtOnce) {
  FP_REQUIRE_RTSP_SERVER();
  TempDir dir("netout-rtsp-sigint-gap");
  RtspServer server({.path = "/live", .record_to = (dir / "recv.h264").string()});
  write_publish_and_file_pipeline(dir, 0, server.uri(), "reconnect: {initial_ms: 200, max_ms: 400}");  // endless
  BackgroundRun run(dir.path(), {"run", "p.yaml"});
  std::this_thread::sleep_for(1500ms);
  server.kill();
  std::this_thread::sleep_for(1500ms);  // several failed attempts
  ASSERT_TRUE(run.alive()) << run.output();
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(10));
  EXPECT_EQ(code, 130) << run.output();
  EXPECT_LT(seconds, time_bound(2.0)) << run.output();
  EXPECT_GT(count_frames(dir / "keep.mp4"), 50);
}

TEST(NetworkOutput, RtspPublishNobodyListeningNamesTheOutputWithoutThePassword) {
  TempDir dir("netout-rtsp-refused");
  write_pipeline(dir, 10, {"rtsp://ana:s3cret@127.0.0.1:" + std::to_string(free_loopback_port(SOCK_STREAM)) + "/live", "keep.mp4"});
  const auto result = run_framepipe_with_timeout({"run", "p.yaml"}, dir.path(), static_cast<int>(time_bound(30)));
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("rtsp://ana:***@127.0.0.1:"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("cannot connect"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("s3cret"), std::string::npos) << result.output;
  EXPECT_EQ(count_frames(dir / "keep.mp4"), 10);
}

// A server that accepts the connection and never answers the ANNOUNCE: Ctrl-C ends the wait.
TEST(NetworkOutput, SigintWhileASilentServerHoldsTheConnectExitsAtOnce) {
  SilentServer silent;
  TempDir dir("netout-silent");
  write_pipeline(dir, 10, {"rtsp://127.0.0.1:" + std::to_string(silent.port()) + "/live"});
  BackgroundRun run(dir.path(), {"run", "p.yaml"});
  ASSERT_TRUE(silent.connected_within(10)) << "framepipe never connected: " << run.outcome();
  std::this_thread::sleep_for(500ms);
  ASSERT_TRUE(run.alive()) << run.output();
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(time_bound(10));
  EXPECT_EQ(code, 130) << run.output();
  EXPECT_LT(seconds, time_bound(2.0)) << run.output();
  EXPECT_EQ(run.output().find("sent rtsp://"), std::string::npos) << "nothing was sent\n" << run.output();
}

// Without Ctrl-C the silent server costs the output its timeout_ms, and the run goes on.
TEST(NetworkOutput, SilentServerTimesOutTheConnect) {
  SilentServer silent;
  TempDir dir("netout-silent-timeout");
  std::ofstream(dir / "p.yaml") << "input: testsrc://160x120@25?frames=5\n"
                                << "realtime: false\n"
                                << "stages:\n"
                                << "  - {id: pub, type: encode, timeout_ms: 500, output: 'rtsp://127.0.0.1:"
                                << silent.port() << "/live'}\n"
                                << "  - {id: file, type: encode, input: input, output: keep.mp4}\n";
  const auto started = Clock::now();
  const auto result = run_framepipe_with_timeout({"run", "p.yaml"}, dir.path(), static_cast<int>(time_bound(30)));
  const double took = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("pub: rtsp://127.0.0.1:"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("no progress within 0.5 s (timeout_ms)"), std::string::npos) << result.output;
  EXPECT_LT(took, time_bound(5.0));
  EXPECT_EQ(count_frames(dir / "keep.mp4"), 5);
}

TEST(NetworkOutput, HlsPlaylistKeepsEverySegmentWhenAsked) {
  FP_REQUIRE_FFMPEG_PROGRAMS();
  if (const auto why = missing_muxer("hls"); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("netout-hls");
  std::filesystem::create_directory(dir / "hls");
  std::ofstream(dir / "p.yaml") << "input: testsrc://320x240@25?frames=100\n"
                                << "stages:\n"
                                << "  - {id: out, type: encode, output: hls/live.m3u8,"
                                << " hls: {segment_seconds: 1, playlist_size: 0}}\n";
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), static_cast<int>(time_bound(30)));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string playlist = read_text(dir / "hls/live.m3u8");
  EXPECT_NE(playlist.find("#EXT-X-ENDLIST"), std::string::npos) << playlist;  // finalized
  for (const char* segment : {"live0.ts", "live1.ts", "live2.ts", "live3.ts"}) {
    EXPECT_NE(playlist.find(segment), std::string::npos) << playlist;
    EXPECT_TRUE(std::filesystem::exists(dir / "hls" / segment)) << segment;
  }
  EXPECT_NE(playlist.find("#EXT-X-TARGETDURATION:1"), std::string::npos) << playlist;  // a key frame each second
  expect_h264_320x240(dir / "hls/live.m3u8");
  EXPECT_EQ(ffprobe_frame_count(dir / "hls/live.m3u8"), 100);
}

TEST(NetworkOutput, HlsLiveWindowDeletesOldSegments) {
  FP_REQUIRE_FFMPEG_PROGRAMS();
  if (const auto why = missing_muxer("hls"); !why.empty()) GTEST_SKIP() << why;
  TempDir dir("netout-hls-window");
  std::ofstream(dir / "p.yaml") << "input: testsrc://320x240@25?frames=200\n"
                                << "stages:\n"
                                << "  - {id: out, type: encode, output: live.m3u8, hls: {segment_seconds: 1, playlist_size: 3}}\n";
  const auto result = run_framepipe_with_timeout({"run", "p.yaml", "-q"}, dir.path(), static_cast<int>(time_bound(30)));
  ASSERT_EQ(result.exit_code, 0) << result.output;
  const std::string playlist = read_text(dir / "live.m3u8");
  int listed = 0;
  for (std::size_t at = playlist.find("#EXTINF"); at != std::string::npos; at = playlist.find("#EXTINF", at + 1)) ++listed;
  EXPECT_EQ(listed, 3) << playlist;
  EXPECT_EQ(playlist.find("#EXT-X-MEDIA-SEQUENCE:0"), std::string::npos) << playlist;  // the window moved on
  int on_disk = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) on_disk += entry.path().extension() == ".ts";
  EXPECT_LE(on_disk, 4);  // the window, and one more FFmpeg keeps for a reader still on it
  EXPECT_EQ(ffprobe_frame_count(dir / "live.m3u8"), 3 * kFps);
}

}  // namespace
}  // namespace fp::test
