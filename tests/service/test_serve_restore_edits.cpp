// What `framepipe serve --state FILE` makes at start of saved streams that the service as it
// is started now can no longer run: a template changed under a stream (a stage renamed, a
// parameter gone, the template no longer given), or a --max-streams below the saved count.
// Those streams are listed failed with the reason, the others run, and none is dropped from
// the state file (mending the template or raising the cap brings them back). A real server
// process, read with the real curl.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/service/state_files.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

constexpr const char* kUri = "testsrc://64x48@30?frames=0";

json stream(const ServeProcess& server, const std::string& name) {
  return curl("GET", server.url("/v1/streams/" + name)).json();
}

std::string state_of(const ServeProcess& server, const std::string& name) {
  const json s = stream(server, name);
  return s.is_object() ? s.value("state", "") : "";
}

std::string last_error(const ServeProcess& server, const std::string& name) {
  const json s = stream(server, name);
  return s.is_object() && s.contains("last_error") && s["last_error"].is_string() ? s["last_error"].get<std::string>()
                                                                                    : "";
}

// A template whose stage 'smooth' was renamed 'blur'.
const char* const kRenamedStage = R"(device: cpu
realtime: true
input: testsrc://64x48@30?frames=0
stages:
  - {id: blur, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mkv'}
)";

// A template whose stage 'smooth' is now another kind of stage, without a 'radius'.
const char* const kOtherStageType = R"(device: cpu
realtime: true
input: testsrc://64x48@30?frames=0
stages:
  - {id: smooth, type: thinning}
  - {id: out, type: encode, output: '{stream}.mkv'}
)";

// Streams saved when 'smooth' and 'thin' each had a mean_smooth stage 'smooth', and a
// template 'gone' was given; now 'smooth' renamed it, 'thin' changed its type and 'gone' is
// not given. The streams whose overrides or template no longer apply are failed, saying
// which; the ones that still validate run; the state file keeps every one.
TEST(ServeRestoreEdits, AStreamItsTemplateNoLongerTakesIsFailedAndTheOthersRun) {
  TempDir state_dir("state-restore-edited");
  const fs::path state = state_dir / "state.json";
  write_state(state, json::array({saved_stream("plain", "smooth", kUri), saved_stream("renamed", "smooth", kUri, "api", {{"smooth.radius", "2"}}),
                                  saved_stream("retyped", "thin", kUri, "api", {{"smooth.radius", "2"}}), saved_stream("orphan", "gone", kUri),
                                  saved_stream("plain2", "thin", kUri)}));
  ServeProcess server("restore-edited", {.templates = {{"smooth", kRenamedStage}, {"thin", kOtherStageType}},
                                         .extra_args = {"--state", state.string()}});
  ASSERT_SERVING(server);
  EXPECT_TRUE(eventually([&] { return state_of(server, "plain") == "running" && state_of(server, "plain2") == "running"; },
                         20))
      << curl("GET", server.url("/v1/streams")).body << server.log();
  struct Failed {
    const char* name;
    const char* says;
  };
  const std::vector<Failed> failed = {
      {"renamed", "--set smooth.radius: unknown stage id 'smooth' (expected: input, blur, out)"},
      {"retyped", "--set smooth.radius: unknown parameter of thinning (expected: threshold)"},
      {"orphan", "unknown template 'gone' (known: smooth, thin)"},
  };
  for (const Failed& f : failed) {
    SCOPED_TRACE(f.name);
    EXPECT_EQ(state_of(server, f.name), "failed");
    const std::string error = last_error(server, f.name);
    EXPECT_NE(error.find(f.says), std::string::npos) << error;
    EXPECT_NE(server.log().find(std::string("stream ") + f.name + ": failed: "), std::string::npos) << server.log();
  }
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200);
  EXPECT_EQ(saved_names(state), (std::vector<std::string>{"plain", "renamed", "retyped", "orphan", "plain2"}));
}

// Three live streams saved, the service started again with --max-streams 1: the first runs,
// the others are failed saying the cap and what starts them (there is no 503 for anyone to
// read at a restore), kept in the state file; a PUT of one once a place is free starts it.
TEST(ServeRestoreEdits, StreamsBeyondALowerMaxStreamsAreFailedSayingSoAndKept) {
  TempDir state_dir("state-restore-cap");
  const fs::path state = state_dir / "state.json";
  write_state(state, json::array({saved_stream("cam0", "smooth", kUri), saved_stream("cam1", "smooth", kUri), saved_stream("cam2", "smooth", kUri)}));
  ServeProcess server("restore-cap", {.extra_args = {"--state", state.string(), "--max-streams", "1"}});
  ASSERT_SERVING(server);
  EXPECT_TRUE(eventually([&] { return state_of(server, "cam0") == "running"; }, 20)) << server.log();
  for (const char* name : {"cam1", "cam2"}) {
    SCOPED_TRACE(name);
    EXPECT_EQ(state_of(server, name), "failed");
    const std::string error = last_error(server, name);
    EXPECT_EQ(error.rfind("capacity: ", 0), 0u) << error;
    EXPECT_NE(error.find("restored beyond the cap (1 running at once, --max-streams)"), std::string::npos)
        << error;
    EXPECT_NE(error.find("PUT it again once a place is free"), std::string::npos) << error;
    EXPECT_NE(server.log().find(std::string("stream ") + name + ": failed: capacity"), std::string::npos) << server.log();
  }
  const json info = curl("GET", server.url("/v1/info")).json();
  EXPECT_EQ(info.value("capacity", 0), 1) << info.dump();
  EXPECT_EQ(info["streams_by_state"].value("failed", 0), 2) << info.dump();
  EXPECT_EQ(saved_names(state), (std::vector<std::string>{"cam0", "cam1", "cam2"}));

  // What the message says to do works: a place freed, the same spec put again runs.
  EXPECT_EQ(curl("DELETE", server.url("/v1/streams/cam0")).status, 202);
  const std::string spec = json{{"pipeline", "smooth"}, {"uri", kUri}}.dump();
  int status = 0;
  EXPECT_TRUE(eventually(
      [&] {
        status = curl_with_body("PUT", server.url("/v1/streams/cam1"), spec).status;
        return status == 200;
      },
      20, std::chrono::milliseconds(200)))
      << "last PUT: " << status;
  EXPECT_TRUE(eventually([&] { return state_of(server, "cam1") == "running"; }, 20)) << server.log();
  EXPECT_EQ(state_of(server, "cam2"), "failed");
}

}  // namespace
}  // namespace fp::test
