// framepipe serve's streams over a process's life, against real server processes driven
// with curl: the desired state survives kill -9 (a new process brings the same streams
// back); SIGTERM drains (readyz 503 at once, every mp4 finalized and playable per ffprobe,
// exit 0 within --drain-timeout); and streams added and removed 200 times leave four
// running streams alone (no drop) and the process's memory flat.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

// Each look is a curl request: not more often than this.
constexpr std::chrono::milliseconds kPoll{50};
using nlohmann::json;

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

// Paced like a camera (30 fps) and dropping the oldest frame when behind, as a live input
// does: a stream held up by its neighbours shows drops.
constexpr const char* kPacedTemplate = R"(device: cpu
realtime: true
drop: oldest
input: testsrc://64x48@30?frames=0
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mp4', preset: ultrafast}
)";

std::string stream_body(const std::string& uri) {
  return json{{"pipeline", "paced"}, {"uri", uri}}.dump();
}

json stream(const ServeProcess& server, const std::string& name) {
  return curl("GET", server.url("/v1/streams/" + name)).json();
}


// The streams the server lists.
json listed_streams(const ServeProcess& server) {
  return curl("GET", server.url("/v1/streams")).json().value("streams", json::array());
}

bool has_frames(const ServeProcess& server, const std::string& name, long long frames = 1) {
  return eventually([&] { return stream(server, name).value("frames", 0LL) >= frames; }, 20, kPoll);
}

// VmRSS of a process, in KiB.
long long resident_kib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6));
  return -1;
}

// Frames ffprobe decodes in a file (-count_frames), or -1 when it cannot read it.
long long ffprobe_frames(const fs::path& file) {
  const std::string command = "ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames "
                              "-of csv=p=0 '" + file.string() + "' 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  char line[256] = {};
  const bool read = std::fgets(line, sizeof line, pipe) != nullptr;
  const int status = ::pclose(pipe);
  if (!read || status != 0) return -1;
  try {
    return std::stoll(line);
  } catch (const std::exception&) {
    return -1;
  }
}

ServeOptions paced_options(std::vector<std::string> extra = {}) {
  ServeOptions options;
  options.templates = {{"paced", kPacedTemplate}};
  options.extra_args = std::move(extra);
  options.drain_timeout = 20;
  return options;
}

TEST(ServeStreams, KillNineAndRestartBringsTheStreamsBack) {
  TempDir state_dir("serve-state");
  const std::string state = (state_dir / "state.json").string();
  {
    ServeProcess first("restore-first", paced_options({"--state", state}));
    ASSERT_SERVING(first);
    ASSERT_EQ(curl_with_body("PUT", first.url("/v1/streams/cam1"), stream_body("testsrc://64x48@30?frames=0")).status, 201);
    ASSERT_EQ(curl_with_body("PUT", first.url("/v1/streams/cam2"), stream_body("testsrc://80x48@30?frames=0")).status, 201);
    ASSERT_EQ(curl_with_body("PUT", first.url("/v1/streams/gone"), stream_body("testsrc://64x48@30?frames=0")).status, 201);
    ASSERT_EQ(curl("DELETE", first.url("/v1/streams/gone")).status, 202);
    ASSERT_TRUE(has_frames(first, "cam1") && has_frames(first, "cam2")) << first.log();
    first.process().signal(SIGKILL);  // no drain, no goodbye: only the state file remains
    EXPECT_EQ(first.process().wait(time_bound(10)).first, -2);
  }
  ServeProcess second("restore-second", paced_options({"--state", state}));
  ASSERT_SERVING(second);
  const json listed = listed_streams(second);
  std::vector<std::string> names;
  for (const auto& s : listed) names.push_back(s.value("name", ""));
  EXPECT_EQ(names, (std::vector<std::string>{"cam1", "cam2"})) << listed.dump();
  EXPECT_TRUE(has_frames(second, "cam1") && has_frames(second, "cam2")) << second.log();
  EXPECT_EQ(stream(second, "cam2").value("uri", ""), "testsrc://80x48@30?frames=0");
  EXPECT_EQ(stream(second, "cam1").value("state", ""), "running");
}

TEST(ServeStreams, SigtermIsNotReadyAtOnceAndLeavesPlayableFiles) {
  ServeProcess server("drain-mp4", paced_options());
  ASSERT_SERVING(server);
  const std::vector<std::string> names = {"cam1", "cam2", "cam3"};
  for (const auto& name : names)
    ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/" + name), stream_body("testsrc://64x48@30?frames=0")).status,
              201);
  for (const auto& name : names) ASSERT_TRUE(has_frames(server, name, 10)) << name << "\n" << server.log();
  ASSERT_EQ(curl("GET", server.url("/readyz")).status, 200);
  server.process().signal(SIGTERM);
  // Not ready at once (within 0.5 s: an orchestrator stops sending work) while the
  // listener still answers as the streams finalize.
  const auto signalled = std::chrono::steady_clock::now();
  HttpReply readyz = curl("GET", server.url("/readyz"), {}, 2);
  while (readyz.status == 200 && std::chrono::steady_clock::now() - signalled < std::chrono::milliseconds(500))
    readyz = curl("GET", server.url("/readyz"), {}, 2);
  // No answer counts only when the server has already ended (its drain done): a listener
  // that closed while the streams still finalize is the failure this looks for.
  if (readyz.status == 0)
    EXPECT_FALSE(server.process().alive()) << "no answer from /readyz while still running: " << readyz.curl_error;
  else
    EXPECT_EQ(readyz.status, 503) << readyz.body;
  const auto [code, seconds] = server.process().wait(time_bound(25));
  EXPECT_EQ(code, 0) << server.log();
  EXPECT_LT(seconds, 20.0 + 1) << "past --drain-timeout 20\n" << server.log();
  for (const auto& name : names) {
    const fs::path file = server.outputs() / (name + ".mp4");
    EXPECT_GT(ffprobe_frames(file), 0) << file << " is not playable\n" << server.log();
    EXPECT_EQ(ffprobe_frames(file), count_frames(file)) << file;
  }
}

// 200 add/remove cycles of extra streams while four streams run: the four drop nothing and
// keep their frame rate, and the server's resident memory after the cycles is what it was
// before them (after a warm-up of 100 cycles: allocator arenas, codec tables).
TEST(ServeStreams, TwoHundredAddRemoveCyclesLeaveFourStreamsAloneAndMemoryFlat) {
  ServeProcess server("churn", paced_options());
  ASSERT_SERVING(server);
  const std::vector<std::string> steady = {"s1", "s2", "s3", "s4"};
  for (const auto& name : steady)
    ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/" + name), stream_body("testsrc://64x48@30?frames=0")).status,
              201);
  for (const auto& name : steady) ASSERT_TRUE(has_frames(server, name)) << server.log();
  std::map<std::string, json> before;
  for (const auto& name : steady) before[name] = stream(server, name);

  // Warm-up: the allocator's per-thread arenas fill up over the first ~100 to 250 streams
  // (measured: 69 MB after 20 cycles, 77 after 100, 83 after 280, then flat up to 600);
  // then 200 cycles are measured. The warm figure is taken past that growth (after 300),
  // so that the margin below is for a leak, not for the arenas' last few MB.
  // Under a sanitizer RSS is not compared (below): no need to wait the growth out.
  const int kWarmUp = cli_under_sanitizer() ? 100 : 300;
  const int kCycles = kWarmUp + 200;
  long long warm_rss = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < kCycles; ++i) {
    const std::string extra = "extra" + std::to_string(i % 3);
    const auto put = curl_with_body("PUT", server.url("/v1/streams/" + extra), stream_body("testsrc://64x48@30?frames=0"));
    ASSERT_TRUE(put.status == 201 || put.status == 200) << i << ": " << put.status << " " << put.body;
    if (i % 10 == 0) {
      ASSERT_TRUE(has_frames(server, extra)) << server.log();  // some run for real
    }
    ASSERT_EQ(curl("DELETE", server.url("/v1/streams/" + extra)).status, 202) << i;
    if (std::getenv("FRAMEPIPE_RSS_TRACE") && (i + 1) % 20 == 0)
      std::printf("cycle %d: RSS %lld KiB\n", i + 1, resident_kib(server.process().pid()));
    if (i + 1 == kWarmUp) {
      ASSERT_TRUE(eventually([&] { return listed_streams(server).size() == steady.size(); }, 20, kPoll));
      warm_rss = resident_kib(server.process().pid());
    }
  }
  ASSERT_TRUE(eventually(
      [&] { return listed_streams(server).size() == steady.size(); },
      20, kPoll))
      << curl("GET", server.url("/v1/streams")).body;
  const long long end_rss = resident_kib(server.process().pid());
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const auto& name : steady) {
    const json s = stream(server, name);
    // The same run all along: never restarted, stopped or reconnected by the others' churn.
    EXPECT_EQ(s.value("state", ""), "running") << name;
    EXPECT_EQ(s.value("since", ""), before[name].value("since", "")) << name << " was restarted";
    EXPECT_EQ(s.value("reconnects", -1LL), 0) << name;
    EXPECT_EQ(s.value("outputs", json()), before[name].value("outputs", json())) << name;
    // Kept up with its camera: at 30 fps, at least half of it over the cycles (a slow build
    // less: time_bound), and drops — the sign of a stream held up — at most 2% of its frames
    // (a loaded 2-core machine may hold any thread up for a moment; a lock held across a
    // change, or a stream restarted, loses far more).
    const long long frames = s.value("frames", 0LL) - before[name].value("frames", 0LL);
    const long long dropped = s.value("dropped", 0LL) - before[name].value("dropped", 0LL);
    EXPECT_GT(static_cast<double>(frames), 15 * seconds / time_bound(1)) << name << " " << seconds << " s";
    EXPECT_LE(static_cast<double>(dropped), 0.02 * static_cast<double>(frames + dropped)) << name << ": " << s.dump();
  }
  ASSERT_GT(warm_rss, 0);
  // Flat: within 10% (and 8 MiB, the allocator's arenas rounding) of the warm figure. Not
  // under a sanitizer: ASan keeps freed memory in quarantine and TSan grows its shadow, so
  // RSS says nothing there (ASan: +21% over the 200 cycles); there LeakSanitizer checks the
  // server at its exit instead (ServeProcess fails a test whose server does not exit 0).
  if (!cli_under_sanitizer()) {
    EXPECT_LT(end_rss, warm_rss + std::max(warm_rss / 10, 8 * 1024LL))
        << "RSS " << warm_rss << " KiB after " << kWarmUp << " cycles, " << end_rss << " KiB after " << kCycles;
  }
  RecordProperty("rss_warm_kib", std::to_string(warm_rss));
  RecordProperty("rss_end_kib", std::to_string(end_rss));
  std::printf("RSS: %lld KiB after %d cycles, %lld KiB after %d (%.1f s)\n", warm_rss, kWarmUp, end_rss, kCycles, seconds);
}

}  // namespace
}  // namespace fp::test
