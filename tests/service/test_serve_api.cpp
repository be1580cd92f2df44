// framepipe serve's API contract, against a real server process and the real curl: every
// route's status codes, the stream JSON, errors as {"error", "status"}, masked URIs,
// DeepStream's add/remove, info and pipelines.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "tests/e2e/silent_server.hpp"
#include "tests/e2e/video_size.hpp"
#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

using nlohmann::json;

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

const std::string kEndless = "testsrc://64x48@30?frames=0";

// Every error body is {"error": "...", "status": N} with N the HTTP status.
void expect_error(const HttpReply& reply, int status, const std::string& containing = "") {
  EXPECT_EQ(reply.status, status) << reply.body << reply.curl_error;
  const json body = reply.json();
  ASSERT_TRUE(body.is_object()) << "not JSON: " << reply.body;
  EXPECT_EQ(body.value("status", 0), status) << reply.body;
  ASSERT_TRUE(body.contains("error") && body["error"].is_string()) << reply.body;
  EXPECT_NE(body["error"].get<std::string>().find(containing), std::string::npos)
      << "error without '" << containing << "': " << reply.body;
}

// After a remove (DELETE or DeepStream's stream/remove) the stream still shows, as
// `draining`, until its outputs are finalized on its own thread (StreamManager::remove);
// then GET says 404. Returns that 404 reply, or the last reply when it never came within
// the bound; any other state while it is still listed fails the test.
HttpReply wait_until_removed(const ServeProcess& server, const std::string& name) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
  for (;;) {
    HttpReply reply = curl("GET", server.url("/v1/streams/" + name));
    if (reply.status != 200 || std::chrono::steady_clock::now() >= deadline) return reply;
    EXPECT_EQ(reply.json().value("state", ""), "draining") << "a removed stream listed as not draining: " << reply.body;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

// The template as kSmoothTemplate, writing MP4: an MP4 plays only once finalized (its index
// is written at the end), so a playable file is a finalized one.
const char* const kSmoothMp4Template = R"(device: cpu
realtime: true
input: testsrc://64x48@30?frames=0
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mp4'}
)";

TEST(ServeApi, StreamIsCreatedReplacedListedAndRemoved) {
  ServeProcess server("crud", {.templates = {{"smooth", kSmoothMp4Template}}});
  ASSERT_SERVING(server);
  const auto created = put_stream(server, "cam1", {{"pipeline", "smooth"}, {"uri", kEndless}});
  ASSERT_EQ(created.status, 201) << created.body << server.log();
  const json stream = created.json();
  EXPECT_EQ(stream["name"], "cam1");
  EXPECT_EQ(stream["pipeline"], "smooth");
  EXPECT_EQ(stream["uri"], kEndless);
  for (const char* key : {"state", "since", "frames", "fps", "dropped", "latency", "reconnects", "last_error", "outputs"})
    EXPECT_TRUE(stream.contains(key)) << key << " missing: " << created.body;
  EXPECT_TRUE(stream["latency"].contains("p50_ms") && stream["latency"].contains("p99_ms")) << created.body;
  EXPECT_TRUE(stream["since"].get<std::string>().ends_with("Z")) << "since is not ISO 8601 UTC: " << created.body;

  // Frames through the first run, so that its file has something to finalize.
  ASSERT_TRUE(eventually([&] { return curl("GET", server.url("/v1/streams/cam1")).json().value("frames", 0LL) > 0; },
                         20, std::chrono::milliseconds(100)))
      << server.log();

  // The same name again: replaced (200) by a new run of the new spec (another size, and the
  // override rendered for the template), and the first run's file finalized, not cut off.
  const std::string bigger = "testsrc://80x48@30?frames=0";
  const auto replaced =
      put_stream(server, "cam1", {{"pipeline", "smooth"}, {"uri", bigger}, {"set", {{"smooth.radius", 2}}}});
  EXPECT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(replaced.json().value("uri", ""), bigger) << replaced.body;
  // The new run writes beside the first run's file (README: no run truncates a file it finds).
  ASSERT_EQ(replaced.json()["outputs"].size(), 1u) << replaced.body;
  const std::filesystem::path written = replaced.json()["outputs"][0].get<std::string>();
  EXPECT_EQ(written, server.outputs() / "cam1~1.mp4") << replaced.body;
  const std::filesystem::path first_file = server.outputs() / "cam1.mp4";
  // Playable means finalized: an MP4 without its index does not open.
  EXPECT_TRUE(eventually([&] { return playable_frames(first_file) > 0; }, 20, std::chrono::milliseconds(100)))
      << "the replaced run's output was not finalized\n" << server.log();
  EXPECT_EQ(video_size(first_file), std::make_pair(64, 48));

  const auto one = curl("GET", server.url("/v1/streams/cam1"));
  EXPECT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(one.json()["name"], "cam1");
  const auto list = curl("GET", server.url("/v1/streams"));
  ASSERT_EQ(list.status, 200) << list.body;
  ASSERT_EQ(list.json()["streams"].size(), 1u) << list.body;
  EXPECT_EQ(list.json()["streams"][0]["name"], "cam1");

  // Frames go through: the stream runs.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
  long long frames = 0;
  while (frames == 0 && std::chrono::steady_clock::now() < deadline) {
    frames = curl("GET", server.url("/v1/streams/cam1")).json().value("frames", 0LL);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_GT(frames, 0) << server.log();

  const auto removed = curl("DELETE", server.url("/v1/streams/cam1"));
  EXPECT_EQ(removed.status, 202) << removed.body;
  expect_error(wait_until_removed(server, "cam1"), 404, "cam1");
  expect_error(curl("DELETE", server.url("/v1/streams/cam1")), 404, "cam1");
  // Its output was finalized where it said, under the output root.
  EXPECT_TRUE(eventually([&] { return playable_frames(written) > 0; }, 20, std::chrono::milliseconds(100)))
      << server.log();
  EXPECT_EQ(video_size(written), std::make_pair(80, 48)) << "the replacing run did not run the new spec";
}

// A replaced stream's new recording is written beside the first under a name no stream name
// can make (cam~1.mkv: '~' is no character of a name): a stream named cam.1 added after it
// writes its own cam.1.mkv. (Kept outputs were cam.1.mkv, and cam.1 was refused 409.)
TEST(ServeApi, AKeptOutputTakesNoNameAStreamCouldWrite) {
  ServeProcess server("kept-names");
  ASSERT_SERVING(server);
  ASSERT_EQ(put_stream(server, "cam", {{"uri", kEndless}}).status, 201);
  const auto replaced = put_stream(server, "cam", {{"uri", kEndless}, {"set", {{"smooth.radius", 2}}}});
  ASSERT_EQ(replaced.status, 200) << replaced.body;
  EXPECT_EQ(std::filesystem::path(replaced.json()["outputs"][0].get<std::string>()).filename(), "cam~1.mkv")
      << replaced.body;
  const auto named_like_it = put_stream(server, "cam.1", {{"uri", kEndless}});
  EXPECT_EQ(named_like_it.status, 201) << named_like_it.body;
  EXPECT_EQ(std::filesystem::path(named_like_it.json()["outputs"][0].get<std::string>()).filename(), "cam.1.mkv")
      << named_like_it.body;
}

// `null` is no file for every kind of output (issue 43): a template whose histogram output is
// null (as the project's own five-stage pipelines have it) runs in serve as in run. It used to
// be taken with 201 and then fail every stream for ever ("cannot create: null: outside
// OUTPUT_ROOT").
TEST(ServeApi, ANullOutputIsNoFile) {
  ServeProcess server("null-output", {.templates = {{"rows", R"(device: cpu
realtime: true
input: testsrc://64x48@30?frames=0
stages:
  - {id: hist, type: luma_histogram, output: null}
  - {id: out, type: encode, output: '{stream}.mkv'}
)"}}});
  ASSERT_SERVING(server);
  ASSERT_EQ(put_stream(server, "cam1", {{"pipeline", "rows"}, {"uri", kEndless}}).status, 201);
  EXPECT_TRUE(eventually([&] { return curl("GET", server.url("/v1/streams/cam1")).json().value("frames", 0LL) >= 5; }, 20))
      << curl("GET", server.url("/v1/streams/cam1")).body << server.log();
  const auto stream = curl("GET", server.url("/v1/streams/cam1")).json();
  EXPECT_EQ(stream.value("state", ""), "running") << stream.dump();
  EXPECT_EQ(stream.value("restarts", 0), 0) << stream.dump();
  EXPECT_FALSE(std::filesystem::exists(server.outputs() / "null"));
}

TEST(ServeApi, BadRequestsSayWhatIsWrong) {
  ServeProcess server("bad-requests");
  ASSERT_SERVING(server);
  const json good = {{"pipeline", "smooth"}, {"uri", kEndless}};
  // Names: [A-Za-z0-9._-]{1,64}.
  expect_error(put_stream(server, "bad%20name", good), 400, "stream name");
  expect_error(put_stream(server, std::string(65, 'a'), good), 400, "stream name");
  expect_error(curl("GET", server.url("/v1/streams/bad%21")), 400, "stream name");
  EXPECT_EQ(put_stream(server, std::string(64, 'a'), good).status, 201);
  // The body: JSON, the keys it may have, each of its type.
  expect_error(curl_with_body("PUT", server.url("/v1/streams/cam2"), "{\"uri\": "), 400, "not valid JSON");
  expect_error(curl_with_body("PUT", server.url("/v1/streams/cam2"), "[1]"), 400, "expected a JSON object");
  expect_error(put_stream(server, "cam2", {{"pipeline", "smooth"}, {"uri", 5}}), 400, "uri: expected a string");
  expect_error(put_stream(server, "cam2", {{"pipeline", "smooth"}}), 400, "uri: missing");
  expect_error(put_stream(server, "cam2", {{"pipeline", 3}, {"uri", kEndless}}), 400, "pipeline: expected a string");
  expect_error(put_stream(server, "cam2", {{"uri", kEndless}, {"sets", json::object()}}), 400, "sets: unknown key");
  expect_error(put_stream(server, "cam2", {{"uri", kEndless}, {"set", {{"smooth.radius", {{"a", 1}}}}}}), 400,
               "set.smooth.radius");
  expect_error(put_stream(server, "cam2", {{"uri", kEndless}, {"set", 8}}), 400, "set: expected a map");
  // What the manager refuses keeps the manager's status and `framepipe validate`'s words.
  // An unknown template is a pipeline that does not validate (README: 422), not an unknown
  // stream (404).
  expect_error(put_stream(server, "cam2", {{"pipeline", "nosuch"}, {"uri", kEndless}}), 422,
               "unknown template 'nosuch'");
  expect_error(put_stream(server, "cam2", {{"uri", kEndless}, {"set", {{"smooth.radius", -3}}}}), 422, "radius");
  // Unknown routes and streams.
  expect_error(curl("GET", server.url("/v1/nothing")), 404, "no route");
  expect_error(curl("GET", server.url("/v1/streams/ghost")), 404, "ghost");
  expect_error(curl("DELETE", server.url("/v1/streams/ghost")), 404, "ghost");
  expect_error(curl("GET", server.url("/v1/streams/ghost/snapshot.jpg")), 404, "ghost");
}

TEST(ServeApi, CapacityIsRefusedWithTheCap) {
  ServeProcess server("capacity", {.extra_args = {"--max-streams", "1"}});
  ASSERT_SERVING(server);
  ASSERT_EQ(put_stream(server, "cam1", {{"uri", kEndless}}).status, 201);
  const auto refused = put_stream(server, "cam2", {{"uri", kEndless}});
  expect_error(refused, 503, "capacity");
  EXPECT_EQ(refused.json().value("max_streams", 0), 1) << refused.body;
  EXPECT_EQ(refused.json()["error"], "capacity") << refused.body;
}

TEST(ServeApi, CredentialsAreNeverShown) {
  ServeProcess server("masked");
  ASSERT_SERVING(server);
  const std::string secret = "s3cr3tPassw0rd";
  const std::string uri = "rtsp://admin:" + secret + "@127.0.0.1:9/stream";
  const std::string masked = "rtsp://admin:***@127.0.0.1:9/stream";
  std::vector<HttpReply> replies;
  replies.push_back(put_stream(server, "cam1", {{"uri", uri}}));
  EXPECT_EQ(replies.back().status, 201) << replies.back().body;
  // And in the errors: a bad PUT quoting the URI, a DeepStream add with the URI; each
  // refused for what it is, with the URI shown masked where it is shown.
  replies.push_back(put_stream(server, "cam2", {{"uri", uri}, {"set", {{"nosuch.param", 1}}}}));
  expect_error(replies.back(), 422, "nosuch");
  // Not JSON where the URI is (an unterminated string): a parser's message quotes that text.
  replies.push_back(curl_with_body("PUT", server.url("/v1/streams/cam3"), "{\"uri\": \"" + uri));
  expect_error(replies.back(), 400, "not valid JSON");
  replies.push_back(curl_with_body("POST", server.url("/api/v1/stream/add"),
                                   json{{"key", "sensor"},
                                        {"value", {{"camera_id", "bad id"}, {"camera_url", uri}, {"change", "camera_add"}}}}
                                       .dump()));
  expect_error(replies.back(), 400, "stream name 'bad id'");
  // The camera refuses: the stream's error, which names its input, is there to be shown.
  ASSERT_TRUE(eventually([&] { return !curl("GET", server.url("/v1/streams/cam1")).json().value("last_error", "").empty(); },
                         20, std::chrono::milliseconds(100)))
      << server.log();
  replies.push_back(curl("GET", server.url("/v1/streams/cam1")));
  replies.push_back(curl("GET", server.url("/v1/streams")));
  replies.push_back(curl("GET", server.url("/v1/info")));
  for (const auto& reply : replies) {
    EXPECT_EQ(reply.body.find(secret), std::string::npos) << reply.body;
    EXPECT_EQ(reply.headers.find(secret), std::string::npos) << reply.headers;
  }
  // Masked, not dropped: the user and the address stay, the password is ***.
  EXPECT_EQ(replies[4].json().value("uri", ""), masked) << replies[4].body;
  EXPECT_NE(replies[4].json().value("last_error", "").find(masked), std::string::npos) << replies[4].body;
  EXPECT_EQ(replies[5].json()["streams"][0].value("uri", ""), masked) << replies[5].body;
  EXPECT_EQ(server.log().find(secret), std::string::npos) << server.log();
  EXPECT_NE(server.log().find("admin:***@"), std::string::npos) << server.log();
}

TEST(ServeApi, InfoAndPipelinesDescribeTheService) {
  ServeProcess server("info", {.templates = {{"smooth", kSmoothTemplate}, {"other", kSmoothTemplate}},
                               .extra_args = {"--max-streams", "3"}});
  ASSERT_SERVING(server);
  ASSERT_EQ(put_stream(server, "cam1", {{"pipeline", "other"}, {"uri", kEndless}}).status, 201);
  const auto info = curl("GET", server.url("/v1/info"));
  ASSERT_EQ(info.status, 200) << info.body;
  const json body = info.json();
  EXPECT_FALSE(body.value("version", "").empty()) << info.body;
  EXPECT_TRUE(body["devices"].is_array() && !body["devices"].empty()) << info.body;
  EXPECT_EQ(body.value("capacity", 0), 3) << info.body;
  EXPECT_EQ(body.value("streams", 0), 1) << info.body;
  EXPECT_TRUE(body["streams_by_state"].is_object()) << info.body;
  const auto pipelines = curl("GET", server.url("/v1/pipelines"));
  ASSERT_EQ(pipelines.status, 200) << pipelines.body;
  EXPECT_EQ(pipelines.json()["pipelines"], json({"other", "smooth"})) << pipelines.body;
  // The first file given is the default template: PUT without "pipeline", DeepStream's add.
  EXPECT_EQ(pipelines.json()["default"], "other") << pipelines.body;
  // Probes: alive and ready with a stream running.
  EXPECT_EQ(curl("GET", server.url("/livez")).status, 200);
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200);
}

TEST(ServeApi, DeepStreamAddAndRemove) {
  ServeProcess server("deepstream");
  ASSERT_SERVING(server);
  const auto change = [&](const std::string& what, const std::string& id) {
    return json{{"key", "sensor"},
                {"value", {{"camera_id", id}, {"camera_name", "front door"}, {"camera_url", kEndless}, {"change", what}}},
                {"headers", {{"source", "vst"}, {"created_at", "2026-11-26T12:00:00.000Z"}}}}
        .dump();
  };
  const auto added = curl_with_body("POST", server.url("/api/v1/stream/add"), change("camera_add", "ds1"));
  ASSERT_EQ(added.status, 200) << added.body << server.log();
  EXPECT_EQ(added.json()["reason"], "STREAM_ADD_SUCCESS") << added.body;
  const auto stream = curl("GET", server.url("/v1/streams/ds1"));
  EXPECT_EQ(stream.status, 200) << stream.body;
  EXPECT_EQ(stream.json()["pipeline"], "smooth") << stream.body;
  expect_error(curl_with_body("POST", server.url("/api/v1/stream/add"), change("camera_remove", "ds2")), 400,
               "value.change");
  expect_error(curl_with_body("POST", server.url("/api/v1/stream/add"), "{\"key\": \"sensor\"}"), 400, "value");
  const auto removed = curl_with_body("POST", server.url("/api/v1/stream/remove"), change("camera_remove", "ds1"));
  EXPECT_EQ(removed.status, 200) << removed.body;
  EXPECT_EQ(removed.json()["reason"], "STREAM_REMOVE_SUCCESS") << removed.body;
  expect_error(wait_until_removed(server, "ds1"), 404, "ds1");
  expect_error(curl_with_body("POST", server.url("/api/v1/stream/remove"), change("camera_remove", "ds1")), 404, "ds1");
}

// Clients and proxies retry: the same PUT again, or DeepStream's add again, answers 200 with
// the stream as it was (same `since`, frames not started over) and leaves its recording
// whole. A changed spec restarts it into a new file beside the first (cam1~1.mkv), and the
// first keeps every frame it had.
TEST(ServeApi, ARetriedPutOrDeepStreamAddChangesNothing) {
  ServeProcess server("retried-put");
  ASSERT_SERVING(server);
  const json body = {{"pipeline", "smooth"}, {"uri", kEndless}};
  ASSERT_EQ(put_stream(server, "cam1", body).status, 201);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
  json before;
  while (std::chrono::steady_clock::now() < deadline) {
    before = curl("GET", server.url("/v1/streams/cam1")).json();
    if (before.value("frames", 0LL) > 30) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GT(before.value("frames", 0LL), 30) << before.dump() << server.log();
  const auto again = put_stream(server, "cam1", body);
  EXPECT_EQ(again.status, 200) << again.body;
  EXPECT_EQ(again.json().value("since", ""), before.value("since", "")) << again.body;
  EXPECT_GE(again.json().value("frames", 0LL), before.value("frames", 0LL)) << "the stream started over: " << again.body;
  EXPECT_EQ(again.json()["outputs"], before["outputs"]) << again.body;

  const std::string add = json{{"key", "sensor"}, {"value", {{"camera_id", "door"}, {"camera_url", kEndless}}}}.dump();
  ASSERT_EQ(curl_with_body("POST", server.url("/api/v1/stream/add"), add).status, 200);
  // Once running: `since` follows the state, and starting -> running is the stream's own
  // change, not the retry's (a sanitized build may still be starting it at the first GET).
  ASSERT_TRUE(eventually([&] { return curl("GET", server.url("/v1/streams/door")).json().value("state", "") == "running"; },
                         20, std::chrono::milliseconds(50)))
      << server.log();
  const std::string door_since = curl("GET", server.url("/v1/streams/door")).json().value("since", "");
  const auto added_again = curl_with_body("POST", server.url("/api/v1/stream/add"), add);
  EXPECT_EQ(added_again.status, 200) << added_again.body;
  EXPECT_EQ(added_again.json()["stream"].value("since", ""), door_since) << added_again.body;

  // A changed spec: a new file, the first one left whole.
  const long long frames_before_change = curl("GET", server.url("/v1/streams/cam1")).json().value("frames", 0LL);
  const auto changed = put_stream(server, "cam1", {{"pipeline", "smooth"}, {"uri", kEndless}, {"set", {{"smooth.radius", 2}}}});
  EXPECT_EQ(changed.status, 200) << changed.body;
  ASSERT_EQ(changed.json()["outputs"].size(), 1u) << changed.body;
  EXPECT_EQ(std::filesystem::path(changed.json()["outputs"][0].get<std::string>()).filename(), "cam1~1.mkv") << changed.body;
  // The new run writes frames before it is removed (else its file may hold no frame yet).
  const auto second_deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
  while (curl("GET", server.url("/v1/streams/cam1")).json().value("frames", 0LL) < 5 &&
         std::chrono::steady_clock::now() < second_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(curl("DELETE", server.url("/v1/streams/cam1")).status, 202);
  expect_error(wait_until_removed(server, "cam1"), 404, "cam1");
  EXPECT_GE(count_frames(server.outputs() / "cam1.mkv"), frames_before_change) << "the first recording was cut short";
  EXPECT_GT(count_frames(server.outputs() / "cam1~1.mkv"), 0);
}

TEST(ServeApi, SnapshotIsAJpegOfTheNewestFrame) {
  ServeProcess server("snapshot");
  ASSERT_SERVING(server);
  ASSERT_EQ(put_stream(server, "cam1", {{"uri", kEndless}}).status, 201);
  HttpReply jpeg;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
  do {
    jpeg = curl("GET", server.url("/v1/streams/cam1/snapshot.jpg"));
  } while (jpeg.status != 200 && std::chrono::steady_clock::now() < deadline);
  ASSERT_EQ(jpeg.status, 200) << jpeg.body << server.log();
  ASSERT_GT(jpeg.body.size(), 4u);
  EXPECT_EQ(static_cast<unsigned char>(jpeg.body[0]), 0xFF);
  EXPECT_EQ(static_cast<unsigned char>(jpeg.body[1]), 0xD8);
  EXPECT_TRUE(jpeg.has_header("Content-Type")) << jpeg.headers;
  EXPECT_NE(jpeg.headers.find("image/jpeg"), std::string::npos) << jpeg.headers;
  EXPECT_EQ(curl("GET", server.url("/v1/streams/cam1/snapshot.jpg?node=smooth")).status, 200);
  expect_error(curl("GET", server.url("/v1/streams/cam1/snapshot.jpg?node=nosuch")), 404, "nosuch");

  // The newest frame: one the stream had not written yet when it was asked for, and a later
  // snapshot is of a later frame (never one kept from before).
  const auto sequence_of = [](const HttpReply& reply) {
    const auto header = reply.header("X-Frame-Sequence");
    return header ? std::stoll(*header) : -1LL;
  };
  const long long written_before = curl("GET", server.url("/v1/streams/cam1")).json().value("frames", 0LL);
  const auto first = curl("GET", server.url("/v1/streams/cam1/snapshot.jpg"));
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_GE(sequence_of(first), written_before) << first.headers;
  const long long written_between = curl("GET", server.url("/v1/streams/cam1")).json().value("frames", 0LL);
  ASSERT_TRUE(eventually([&] {
    return curl("GET", server.url("/v1/streams/cam1")).json().value("frames", 0LL) > written_between;
  }, 10)) << server.log();
  const auto second = curl("GET", server.url("/v1/streams/cam1/snapshot.jpg"));
  ASSERT_EQ(second.status, 200) << second.body;
  EXPECT_GT(sequence_of(second), sequence_of(first)) << first.headers << second.headers;
  EXPECT_GE(sequence_of(second), written_between) << second.headers;
}

// No frame yet (its camera accepted the connection and says nothing, so the stream is still
// starting): 503 saying so, once the wait for a next frame (3 s) is over. A stream that is
// not running (a file input that finished): 409 with its state.
TEST(ServeApi, SnapshotIs503BeforeAFirstFrameAnd409OnceNotRunning) {
  SilentServer camera;
  ServeProcess server("snapshot-states");
  ASSERT_SERVING(server);
  ASSERT_EQ(put_stream(server, "mute", {{"uri", "rtsp://127.0.0.1:" + std::to_string(camera.port()) + "/live"}}).status,
            201);
  ASSERT_TRUE(camera.connected_within(20)) << server.log();
  expect_error(curl("GET", server.url("/v1/streams/mute/snapshot.jpg")), 503, "stream mute: no frame");
  EXPECT_EQ(curl("GET", server.url("/v1/streams/mute")).json().value("state", ""), "starting");

  ASSERT_EQ(put_stream(server, "clip", {{"uri", "testsrc://64x48@30?frames=5"}}).status, 201);
  ASSERT_TRUE(eventually([&] { return curl("GET", server.url("/v1/streams/clip")).json().value("state", "") == "finished"; },
                         20, std::chrono::milliseconds(100)))
      << server.log();
  expect_error(curl("GET", server.url("/v1/streams/clip/snapshot.jpg")), 409, "is not running (finished)");
}

}  // namespace
}  // namespace fp::test
