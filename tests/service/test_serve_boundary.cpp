// framepipe serve's boundary against clients that do not play fair (issue 27): one PUT that
// cannot crash it (long and deep values), bodies and headers bounded as they arrive (chunked
// or not), probes that answer GET and HEAD only and stay answerable under a flood, a web page
// kept out when there is no token (Host, Origin, Content-Type), no request smuggled in a body,
// blank lines before a request ignored, and a refusal instead of "100 Continue". Each against
// a real `framepipe serve`, with curl or with the exact bytes a hostile client would send
// (raw_http_client.hpp).
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/service/curl_client.hpp"
#include "tests/service/raw_http_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

const std::string kStream = R"({"uri": "testsrc://64x48@30?frames=0"})";
constexpr std::size_t kMiB = 1024 * 1024;

// The server's peak resident memory (VmHWM), in bytes: what a body it read whole would raise.
std::size_t peak_memory(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoul(line.substr(6)) * 1024;
  return 0;
}

std::string request_head(const std::string& method, const std::string& path, const std::string& headers = "") {
  return method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n" + headers + "\r\n";
}

// `total` bytes of body in chunks of `chunk` bytes, and the last chunk.
std::string chunked_body(std::size_t total, std::size_t chunk, char fill = 'x') {
  std::string body;
  char size[32];
  for (std::size_t sent = 0; sent < total; sent += chunk) {
    const std::size_t n = std::min(chunk, total - sent);
    std::snprintf(size, sizeof(size), "%zx\r\n", n);
    body += size + std::string(n, fill) + "\r\n";
  }
  return body + "0\r\n\r\n";
}


// One PUT used to crash the whole service (SIGSEGV, every stream lost unfinalized): a long
// `set` value ran std::regex_match, which recursed once per character on the HTTP worker's
// stack, and a deep list ran nlohmann's recursive dump(). Each is now a 400 naming the field
// and its limit, and the stream already running goes on.
TEST(ServeBoundary, OnePutCannotCrashIt) {
  ServeProcess server("one-put");
  ASSERT_SERVING(server);
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/cam0"), kStream).status, 201);
  const auto long_value = curl_with_body(
      "PUT", server.url("/v1/streams/cam1"),
      R"({"uri": "testsrc://64x48@30?frames=0", "set": {"smooth.radius": ")" + std::string(30'000, 'a') + R"("}})");
  EXPECT_EQ(long_value.status, 400) << long_value.curl_error << long_value.body.substr(0, 300);
  EXPECT_NE(long_value.body.find("set.smooth.radius"), std::string::npos) << long_value.body.substr(0, 300);
  EXPECT_NE(long_value.body.find("4096"), std::string::npos) << long_value.body.substr(0, 300);
  // 30,000 levels fit in the 64 KiB body limit.
  const auto deep = curl_with_body("PUT", server.url("/v1/streams/cam1"),
                                   R"({"uri": "testsrc://64x48@30?frames=0", "set": {"smooth.radius": )" +
                                       std::string(30'000, '[') + std::string(30'000, ']') + "}}");
  EXPECT_EQ(deep.status, 400) << deep.curl_error << deep.body.substr(0, 300);
  EXPECT_NE(deep.body.find("nested deeper than"), std::string::npos) << deep.body.substr(0, 300);
  const auto deep_add = curl_with_body("POST", server.url("/api/v1/stream/add"),
                                       R"({"key": "sensor", "value": {"camera_id": "door", "camera_url": )" +
                                           std::string(30'000, '[') + std::string(30'000, ']') + "}}");
  EXPECT_EQ(deep_add.status, 400) << deep_add.curl_error << deep_add.body.substr(0, 300);
  const auto long_url = curl_with_body("POST", server.url("/api/v1/stream/add"),
                                       R"({"key": "sensor", "value": {"camera_id": "door", "camera_url": "testsrc://)" +
                                           std::string(30'000, 'a') + R"("}})");
  EXPECT_EQ(long_url.status, 400) << long_url.curl_error << long_url.body.substr(0, 300);
  EXPECT_NE(long_url.body.find("value.camera_url"), std::string::npos) << long_url.body.substr(0, 300);
  // Still serving, cam0 still running, nothing else added.
  EXPECT_EQ(curl("GET", server.url("/livez")).status, 200);
  const auto cam0 = curl("GET", server.url("/v1/streams/cam0")).json();
  ASSERT_TRUE(cam0.is_object()) << "the service is gone";
  EXPECT_EQ(cam0.value("state", ""), "running") << cam0.dump();
  EXPECT_FALSE(listed(server, "cam1"));
  EXPECT_FALSE(listed(server, "door"));
}

TEST(ServeBoundary, ProbesAnswerGetAndHeadOnly) {
  ServeProcess server("probe-methods");
  ASSERT_SERVING(server);
  EXPECT_EQ(curl("HEAD", server.url("/livez"), {"-I"}).status, 200);
  EXPECT_EQ(curl("HEAD", server.url("/readyz"), {"-I"}).status, 200);
  for (const std::string method : {"POST", "PUT", "DELETE"}) {
    const auto reply = curl_with_body(method, server.url("/livez"), "{}");
    EXPECT_EQ(reply.status, 405) << method << " " << reply.body;
    EXPECT_NE(reply.headers.find("GET, HEAD"), std::string::npos) << reply.headers;
  }
  // A chunked body sent to a probe is not read at all: the server answers and closes, and a
  // client pushing 64 MiB finds it gone long before the end (today's memory: unchanged).
  const auto before = peak_memory(server.process().pid());
  RawConnection flood(server.port());
  ASSERT_TRUE(flood.connected());
  const std::string chunks = chunked_body(64 * kMiB, kMiB);
  const std::size_t taken = flood.send(request_head("POST", "/livez", "Transfer-Encoding: chunked\r\n") + chunks,
                                       time_bound(20));
  EXPECT_LT(taken, 16 * kMiB) << "the server read a probe's chunked body";
  EXPECT_LT(peak_memory(server.process().pid()), before + 16 * kMiB);
  EXPECT_EQ(curl("GET", server.url("/livez")).status, 200);
}

TEST(ServeBoundary, ChunkedBodiesAreBoundedAsTheyArrive) {
  ServeProcess server("chunked-limit");
  ASSERT_SERVING(server);
  // Over the 64 KiB limit once decoded, though each chunk is small: 413, nothing started.
  RawConnection over(server.port());
  ASSERT_TRUE(over.connected());
  const std::string padded = R"({"uri": "testsrc://64x48@30?frames=0", "pad": ")" + std::string(100 * 1024, 'x') + "\"}";
  std::string body;
  for (std::size_t at = 0; at < padded.size(); at += 4096) {
    const auto part = padded.substr(at, 4096);
    char size[16];
    std::snprintf(size, sizeof(size), "%zx\r\n", part.size());
    body += size + part + "\r\n";
  }
  over.send(request_head("PUT", "/v1/streams/cam1",
                         "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n") + body + "0\r\n\r\n");
  const std::string answer = over.receive_until_closed(time_bound(10));
  EXPECT_EQ(first_status(answer), 413) << answer;
  EXPECT_TRUE(over.closed()) << "the connection stays open after a body it refused";
  EXPECT_FALSE(listed(server, "cam1"));

  // 64 MiB chunked to an API route: cut off as it arrives, not read whole and then refused.
  const auto before = peak_memory(server.process().pid());
  RawConnection flood(server.port());
  ASSERT_TRUE(flood.connected());
  const std::size_t taken = flood.send(
      request_head("PUT", "/v1/streams/cam2", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n") +
          chunked_body(64 * kMiB, 64 * 1024),
      time_bound(20));
  EXPECT_LT(taken, 16 * kMiB) << "the server read a 64 MiB chunked body";
  EXPECT_LT(peak_memory(server.process().pid()), before + 16 * kMiB);
  // A body within the limit, chunked, is taken as any other.
  RawConnection fine(server.port());
  char size[16];
  std::snprintf(size, sizeof(size), "%zx\r\n", kStream.size());
  fine.send(request_head("PUT", "/v1/streams/cam3", "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n") +
            size + kStream + "\r\n0\r\n\r\n");
  const std::string created = fine.receive_until_closed(time_bound(10));
  EXPECT_EQ(first_status(created), 201) << created;
  EXPECT_TRUE(listed(server, "cam3"));
}

TEST(ServeBoundary, HeadersAreBoundedInNumberAndSize) {
  ServeProcess server("header-limits");
  ASSERT_SERVING(server);
  std::string many;
  for (int i = 0; i < 150; ++i) many += "X-Pad-" + std::to_string(i) + ": y\r\n";
  RawConnection lines(server.port());
  ASSERT_TRUE(lines.connected());
  lines.send(request_head("GET", "/v1/info", many));
  const std::string too_many = lines.receive_until_closed(time_bound(10));
  EXPECT_EQ(first_status(too_many), 431) << too_many.substr(0, 300);

  std::string big;
  for (int i = 0; i < 5; ++i) big += "X-Big-" + std::to_string(i) + ": " + std::string(4000, 'z') + "\r\n";
  RawConnection bytes(server.port());
  ASSERT_TRUE(bytes.connected());
  bytes.send(request_head("GET", "/v1/info", big));
  const std::string too_big = bytes.receive_until_closed(time_bound(10));
  EXPECT_EQ(first_status(too_big), 431) << too_big.substr(0, 300);

  // Endless tiny headers are cut off, not stored: a megabyte of them leaves memory as it was.
  const auto before = peak_memory(server.process().pid());
  RawConnection endless(server.port());
  ASSERT_TRUE(endless.connected());
  std::string flood = "GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\n";
  while (flood.size() < 8 * kMiB) flood += "a:b\r\n";
  const std::size_t taken = endless.send(flood, time_bound(20));
  EXPECT_LT(taken, 4 * kMiB);
  EXPECT_LT(peak_memory(server.process().pid()), before + 8 * kMiB);
  EXPECT_EQ(curl("GET", server.url("/v1/info")).status, 200);
}

// Connections from `from` that send a header byte every 300 ms, and connect again when the
// server closes them: a slow flood that never lets up. held() says how many of them the
// server holds open (a byte sent to each since the last round, none refused).
class TrickleFlood {
 public:
  TrickleFlood(int port, const std::string& from, int connections) {
    thread_ = std::thread([this, port, from, connections] {
      std::vector<RawConnection> open;
      const std::string request = "GET /v1/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: " + std::string(4000, 'y');
      std::vector<std::size_t> sent;
      while (!done_) {
        while (static_cast<int>(open.size()) < connections && !done_) {
          open.emplace_back(port, from);
          sent.push_back(0);
        }
        int held = 0;
        for (std::size_t i = 0; i < open.size(); ++i) {
          if (open[i].send_byte(request[sent[i]++ % request.size()])) {
            ++held;
          } else {
            open[i].reconnect(port, from);
            sent[i] = 0;
          }
        }
        held_ = held;
        ++rounds_;
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
      }
    });
    // Bounded: a flood that cannot open its connections fails the test rather than hangs it.
    if (!eventually([this] { return rounds_ >= 3; }, 30)) ADD_FAILURE() << "the flood never got going";
  }
  ~TrickleFlood() {
    done_ = true;
    thread_.join();
  }
  int held() const { return held_; }

 private:
  std::atomic<bool> done_{false};
  std::atomic<int> rounds_{0};
  std::atomic<int> held_{0};
  std::thread thread_;
};

// The flood holds its connections: the server keeps `at_least` of them open, and a further
// connection from the flooding address is refused at once (503), not queued.
void expect_flood_holds(int port, const TrickleFlood& flood, const std::string& from, int at_least) {
  EXPECT_GE(flood.held(), at_least) << "the flood from " << from << " holds " << flood.held() << " connections";
  RawConnection further(port, from);
  ASSERT_TRUE(further.connected());
  further.send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string answer = further.receive_until_closed(2);
  EXPECT_EQ(first_status(answer), 503) << "a further connection from " << from << ":\n" << answer;
  EXPECT_NE(answer.find("too many connections from one address"), std::string::npos) << answer;
}

// Probes of `url` from the loopback address `from`, each given 5 s: how many were answered
// 200, and what the others got.
int probes_answered(const std::string& url, const std::string& from, int probes, std::string& failures) {
  int answered = 0;
  for (int i = 0; i < probes; ++i) {
    const auto reply = curl("GET", url, {"--interface", from}, 5);
    if (reply.status == 200) ++answered;
    else failures += std::to_string(reply.status) + " " + reply.curl_error + "; ";
  }
  return answered;
}

TEST(ServeBoundary, ProbesStayAnswerableUnderASlowFloodFromAnotherAddress) {
  ServeProcess server("slow-flood");
  ASSERT_SERVING(server);
  // More connections than the server has workers and queue together, all from 127.0.0.2.
  TrickleFlood flood(server.port(), "127.0.0.2", 200);
  expect_flood_holds(server.port(), flood, "127.0.0.2", 16);
  std::string failures;
  EXPECT_EQ(probes_answered(server.url("/livez"), "127.0.0.1", 20, failures), 20)
      << "probes failed under a flood from another address: " << failures;
}

// Several addresses, each at its cap, hold more connections than the server has workers
// (3 x 16 > 32): the probes on the API's own port (a plain serve, the systemd unit) still
// answer, from a fourth address, every time. They used to fail 17 of 22.
TEST(ServeBoundary, ProbesStayAnswerableUnderASlowFloodFromSeveralAddresses) {
  ServeProcess server("slow-flood-many");
  ASSERT_SERVING(server);
  std::vector<std::unique_ptr<TrickleFlood>> floods;
  const std::vector<std::string> from = {"127.0.0.2", "127.0.0.3", "127.0.0.4"};
  for (const auto& address : from) floods.push_back(std::make_unique<TrickleFlood>(server.port(), address, 16));
  for (std::size_t i = 0; i < from.size(); ++i) expect_flood_holds(server.port(), *floods[i], from[i], 16);
  std::string failures;
  EXPECT_EQ(probes_answered(server.url("/livez"), "127.0.0.5", 20, failures), 20)
      << failures;
  // The API too: a request that has arrived whole gets a worker, whatever the slow ones do.
  EXPECT_EQ(curl("GET", server.url("/v1/info"), {}, 5).status, 200);
}

// One address holds 16 connections at once, counted from the moment they are accepted: the
// 17th is answered 503 at once; once one of the 16 goes, the address is served again.
TEST(ServeBoundary, OneAddressHoldsAtMostSixteenConnections) {
  ServeProcess server("per-address");
  ASSERT_SERVING(server);
  std::vector<RawConnection> held;
  for (int i = 0; i < 16; ++i) {
    held.emplace_back(server.port(), "127.0.0.6");
    ASSERT_TRUE(held.back().connected());
    held.back().send("GET /livez HTTP/1.1\r\n");  // begun, not finished: held by the server
  }
  RawConnection seventeenth(server.port(), "127.0.0.6");
  seventeenth.send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  const std::string refused = seventeenth.receive_until_closed(time_bound(5));
  EXPECT_EQ(first_status(refused), 503) << refused;
  EXPECT_NE(refused.find("too many connections from one address"), std::string::npos) << refused;
  // Another address is not counted with it.
  EXPECT_EQ(curl("GET", server.url("/livez"), {"--interface", "127.0.0.7"}).status, 200);
  // One of the 16 finishes its request: its place is free again.
  held.front().send("Host: 127.0.0.1\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(first_status(held.front().receive_until_closed(time_bound(5))), 200);
  EXPECT_TRUE(eventually([&] {
    RawConnection again(server.port(), "127.0.0.6");
    again.send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    return first_status(again.receive_until_closed(time_bound(5))) == 200;
  }, 10));
}

TEST(ServeBoundary, ProbeListenerAnswersWhateverTheApiClientsDo) {
  ServeProcess server("probe-listen", {.extra_args = {"--probe-listen", "127.0.0.1:0"}});
  ASSERT_SERVING(server);
  const std::string log = server.log();
  const std::string marker = "probes on http://127.0.0.1:";
  const auto at = log.find(marker);
  ASSERT_NE(at, std::string::npos) << log;
  const std::string probes = "http://127.0.0.1:" + std::to_string(std::stoi(log.substr(at + marker.size())));
  // A flood of the API's port from the very address the probes come from.
  TrickleFlood flood(server.port(), "127.0.0.1", 250);
  expect_flood_holds(server.port(), flood, "127.0.0.1", 16);
  std::string failures;
  EXPECT_EQ(probes_answered(probes + "/livez", "127.0.0.1", 20, failures), 20) << failures;
  EXPECT_EQ(curl("GET", probes + "/readyz", {}, 5).status, 200);
  // Only the probes: the API is not reachable there.
  EXPECT_EQ(curl("GET", probes + "/v1/streams", {}, 5).status, 404);
}

TEST(ServeBoundary, AWebPageCannotDriveItWithoutAToken) {
  ServeProcess server("browser-guard");
  ASSERT_SERVING(server);
  const std::string port = std::to_string(server.port());
  const std::string add = R"({"key": "sensor", "value": {"camera_id": "door", "camera_url": "testsrc://64x48@30?frames=0", "change": "camera_add"}})";
  // What a page's fetch(url, {mode: "no-cors", method: "POST", body}) sends: text/plain, its Origin.
  const auto no_cors = curl_with_body("POST", server.url("/api/v1/stream/add"), add,
                                      {"-H", "Content-Type: text/plain", "-H", "Origin: http://evil.example"});
  EXPECT_EQ(no_cors.status, 403) << no_cors.body;
  EXPECT_NE(no_cors.body.find("evil.example"), std::string::npos) << no_cors.body;
  // Without its Origin (an old browser), text/plain alone is refused, as it arrives.
  RawConnection plain(server.port());
  plain.send("POST /api/v1/stream/add HTTP/1.1\r\nHost: 127.0.0.1:" + port +
             "\r\nContent-Type: text/plain;charset=UTF-8\r\nContent-Length: " + std::to_string(add.size()) + "\r\n\r\n" + add);
  const std::string plain_answer = plain.receive_until_closed(time_bound(10));
  EXPECT_EQ(first_status(plain_answer), 415) << plain_answer;
  // And so is a second Content-Type after a JSON one (which one would a proxy believe?).
  const auto two_types = curl_with_body("POST", server.url("/api/v1/stream/add"), add, {"-H", "Content-Type: text/plain"});
  EXPECT_EQ(two_types.status, 415) << two_types.body;
  EXPECT_FALSE(listed(server, "door"));
  const auto drain = curl("POST", server.url("/v1/drain"), {"-H", "Content-Type: application/json", "-H", "Origin: http://evil.example"});
  EXPECT_EQ(drain.status, 403) << drain.body;
  const auto bare_drain = curl("POST", server.url("/v1/drain"));  // no Content-Type: what a form or beacon may send
  EXPECT_EQ(bare_drain.status, 415) << bare_drain.body;
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200) << "a page drained the service";
  // DNS rebinding: the page's own name in Host.
  const auto rebound = curl("GET", server.url("/v1/streams"), {"-H", "Host: evil.example:" + port});
  EXPECT_EQ(rebound.status, 403) << rebound.body;
  const auto rebound_put = curl_with_body("PUT", server.url("/v1/streams/cam1"), kStream, {"-H", "Host: evil.example"});
  EXPECT_EQ(rebound_put.status, 403) << rebound_put.body;
  EXPECT_FALSE(listed(server, "cam1"));
  // The names it is reached by: loopback names and the listen address.
  for (const std::string& host : {"localhost:" + port, "127.0.0.1:" + port, "[::1]:" + port, std::string("LOCALHOST.")})
    EXPECT_EQ(curl("GET", server.url("/v1/streams"), {"-H", "Host: " + host}).status, 200) << host;
  // Its own page's origin may change state, with JSON.
  const auto own = curl_with_body("PUT", server.url("/v1/streams/cam1"), kStream,
                                  {"-H", "Origin: http://127.0.0.1:" + port});
  EXPECT_EQ(own.status, 201) << own.body;
  // Probes and metrics answer whatever the Host: the kubelet and Prometheus name the pod's address.
  EXPECT_EQ(curl("GET", server.url("/livez"), {"-H", "Host: 10.1.2.3:" + port}).status, 200);
  EXPECT_EQ(curl("GET", server.url("/metrics"), {"-H", "Host: 10.1.2.3:" + port}).status, 200);
  EXPECT_EQ(curl("GET", server.url("/v1/streams"), {"-H", "Host: 10.1.2.3:" + port}).status, 403);
}

TEST(ServeBoundary, AllowHostAddsANameClientsMayUse) {
  ServeProcess server("allow-host", {.extra_args = {"--allow-host", "cams.example"}});
  ASSERT_SERVING(server);
  const std::string port = std::to_string(server.port());
  EXPECT_EQ(curl("GET", server.url("/v1/streams"), {"-H", "Host: cams.example:" + port}).status, 200);
  EXPECT_EQ(curl_with_body("PUT", server.url("/v1/streams/cam1"), kStream,
                           {"-H", "Host: cams.example:" + port, "-H", "Origin: http://cams.example:" + port})
                .status,
            201);
  EXPECT_EQ(curl("GET", server.url("/v1/streams"), {"-H", "Host: other.example:" + port}).status, 403);
}

TEST(ServeBoundary, WithATokenTheBrowserChecksStayOff) {
  TempDir tokens("serve-boundary-token");
  const std::string token = "tok-b7e1d2c3a4f5";
  std::ofstream(tokens / "token") << token << "\n";
  ServeProcess server("browser-guard-token", {.extra_args = {"--token-file", (tokens / "token").string()}});
  ASSERT_SERVING(server);
  const std::vector<std::string> auth = {"-H", "Authorization: Bearer " + token, "-H", "Host: framepipe.internal"};
  EXPECT_EQ(curl("GET", server.url("/v1/streams"), auth).status, 200);
  EXPECT_EQ(curl("GET", server.url("/v1/streams"), {"-H", "Host: framepipe.internal"}).status, 401);
}

TEST(ServeBoundary, ABodyIsNeverTakenForARequest) {
  ServeProcess server("smuggling");
  ASSERT_SERVING(server);
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/cam1"), kStream).status, 201);
  const std::string& smuggled = kSmuggledDeleteOfCam1;
  const std::string length = "Content-Length: " + std::to_string(smuggled.size()) + "\r\n";
  for (const std::string method : {"GET", "OPTIONS", "HEAD"}) {
    RawConnection connection(server.port());
    ASSERT_TRUE(connection.connected());
    connection.send(request_head(method, method == "OPTIONS" ? "/v1/streams/cam1" : "/v1/info", length) + smuggled);
    const std::string answers = connection.receive_until_closed(time_bound(10));
    EXPECT_EQ(count_answers(answers), 1) << method << ":\n" << answers;
    EXPECT_TRUE(connection.closed()) << method;
    EXPECT_TRUE(listed(server, "cam1")) << "a " << method << " request's body deleted cam1";
  }
  // Framing two readers could read differently: 400, and the connection ends.
  const std::vector<std::string> ambiguous = {
      "Content-Length: 0\r\nContent-Length: " + std::to_string(smuggled.size()) + "\r\n",
      length + "Transfer-Encoding: chunked\r\n",
      "Transfer-Encoding: gzip, chunked\r\n",
      "Content-Length: +5\r\n",
  };
  for (const auto& framing : ambiguous) {
    RawConnection connection(server.port());
    ASSERT_TRUE(connection.connected());
    connection.send(request_head("POST", "/v1/drain", "Content-Type: application/json\r\n" + framing) + smuggled);
    const std::string answers = connection.receive_until_closed(time_bound(10));
    EXPECT_EQ(first_status(answers), 400) << framing << answers;
    EXPECT_EQ(count_answers(answers), 1) << framing << answers;
    EXPECT_TRUE(connection.closed()) << framing;
  }
  EXPECT_TRUE(listed(server, "cam1"));
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200) << "a smuggled drain ran";
  // Requests without a body still share a connection.
  RawConnection kept(server.port());
  kept.send(request_head("GET", "/livez") + request_head("GET", "/livez", "Connection: close\r\n"));
  EXPECT_EQ(count_answers(kept.receive_until_closed(time_bound(10))), 2);
}

TEST(ServeBoundary, BlankLinesBeforeARequestAreIgnored) {
  ServeProcess server("blank-lines");
  ASSERT_SERVING(server);
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.connected());
  connection.send("\r\n\r\n\r\n" + request_head("GET", "/livez", "Connection: close\r\n"));
  const std::string answers = connection.receive_until_closed(time_bound(10));
  EXPECT_EQ(count_answers(answers), 1) << answers;
  EXPECT_EQ(first_status(answers), 200) << answers;
}

TEST(ServeBoundary, ExpectContinueGetsTheRefusalInstead) {
  TempDir tokens("serve-boundary-expect");
  std::ofstream(tokens / "token") << "tok-0a1b2c3d4e5f\n";
  ServeProcess server("expect-continue", {.extra_args = {"--token-file", (tokens / "token").string()}});
  ASSERT_SERVING(server);
  RawConnection connection(server.port());
  ASSERT_TRUE(connection.connected());
  // Headers only: a client that waits for 100 Continue sends its body after it.
  connection.send(request_head("PUT", "/v1/streams/cam1",
                               "Content-Type: application/json\r\nContent-Length: 40\r\nExpect: 100-continue\r\n"));
  const std::string answers = connection.receive_until_closed(time_bound(10));
  EXPECT_EQ(first_status(answers), 401) << answers;
  EXPECT_EQ(answers.find(" 100 "), std::string::npos) << answers;
}

}  // namespace
}  // namespace fp::test
