// The HTTP layer's decisions on a request's headers, one by one (the service tests check
// them against a real server): the framing it refuses and the bodies it closes after
// (request_framing.hpp), and what keeps a web page out without a token (browser_guard.hpp);
// and what a route that fails answers (a real HttpServer on loopback, asked by httplib's client).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "service/browser_guard.hpp"
#include "service/http_server.hpp"
#include "service/request_framing.hpp"

namespace fp::service {
namespace {

httplib::Request with_headers(std::initializer_list<std::pair<const char*, const char*>> headers) {
  httplib::Request req;
  for (const auto& [name, value] : headers) req.headers.emplace(name, value);
  return req;
}

TEST(RequestFraming, RefusesWhatTwoReadersCouldReadDifferently) {
  EXPECT_TRUE(framing_problem(with_headers({{"Content-Length", "5"}, {"Content-Length", "5"}})));
  EXPECT_TRUE(framing_problem(with_headers({{"Content-Length", "5"}, {"Transfer-Encoding", "chunked"}})));
  EXPECT_TRUE(framing_problem(with_headers({{"Transfer-Encoding", "gzip, chunked"}})));
  EXPECT_TRUE(framing_problem(with_headers({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}})));
  for (const char* length : {"+5", "-1", "5 5", "5,5", "0x10", "", "1234567890123456789"})
    EXPECT_TRUE(framing_problem(with_headers({{"Content-Length", length}}))) << "'" << length << "'";
  EXPECT_FALSE(framing_problem(with_headers({})));
  EXPECT_FALSE(framing_problem(with_headers({{"Content-Length", "42"}})));
  EXPECT_FALSE(framing_problem(with_headers({{"Content-Length", " 42 "}})));
  EXPECT_FALSE(framing_problem(with_headers({{"Transfer-Encoding", "Chunked"}})));
}

TEST(RequestFraming, ABodyIsAnyLengthButZeroOrAnyCoding) {
  EXPECT_FALSE(carries_body(with_headers({})));
  EXPECT_FALSE(carries_body(with_headers({{"Content-Length", "0"}})));
  EXPECT_FALSE(carries_body(with_headers({{"Content-Length", "000"}})));
  EXPECT_TRUE(carries_body(with_headers({{"Content-Length", "1"}})));
  EXPECT_TRUE(carries_body(with_headers({{"Content-Length", "0"}, {"Content-Length", "5"}})));
  EXPECT_TRUE(carries_body(with_headers({{"Transfer-Encoding", "chunked"}})));
  EXPECT_TRUE(carries_body(with_headers({{"Content-Length", "x"}})));
}

TEST(BrowserGuard, HostMustNameTheService) {
  const BrowserGuard guard({"127.0.0.1", 8080}, {"cams.example", "[fd00::7]"});
  for (const char* host : {"127.0.0.1:8080", "127.0.0.1", "localhost", "LocalHost:8080", "localhost.:8080",
                           "[::1]:8080", "127.1.2.3:9", "cams.example", "CAMS.example:80", "[fd00::7]:8080"})
    EXPECT_FALSE(guard.host_problem(host)) << host;
  for (const char* host : {"", "evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.evil.example",
                           "1270.0.0.1", "127.0.0.256", "10.0.0.1:8080", "::1", "[::1", "cams.example@evil", "local host"})
    EXPECT_TRUE(guard.host_problem(host)) << host;
}

TEST(BrowserGuard, TheListenAddressIsOneOfItsNames) {
  const BrowserGuard guard({"192.168.7.9", 8080}, {});
  EXPECT_FALSE(guard.host_problem("192.168.7.9:8080"));
  EXPECT_TRUE(guard.host_problem("192.168.7.10:8080"));
}

TEST(BrowserGuard, OriginMustBeOneOfItsNames) {
  const BrowserGuard guard({"127.0.0.1", 8080}, {"cams.example"});
  EXPECT_FALSE(guard.origin_problem(""));
  for (const char* origin : {"http://127.0.0.1:8080", "http://localhost:3000", "https://cams.example", "http://[::1]:8080"})
    EXPECT_FALSE(guard.origin_problem(origin)) << origin;
  for (const char* origin : {"http://evil.example", "null", "file://", "http://localhost.evil.example",
                             "ftp://127.0.0.1", "http://127.0.0.1@evil.example", "127.0.0.1"})
    EXPECT_TRUE(guard.origin_problem(origin)) << origin;
}

TEST(BrowserGuard, ARefusalQuotesTheClientOnlyPrintablyAndBriefly) {
  const BrowserGuard guard({"127.0.0.1", 8080}, {});
  const auto problem = guard.host_problem(std::string(5000, 'h') + "\x01\x7f");
  ASSERT_TRUE(problem);
  EXPECT_LT(problem->size(), 300u);
  for (const char c : *problem) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << static_cast<int>(c);
}

TEST(BrowserGuard, JsonContentType) {
  for (const char* type : {"application/json", "Application/JSON", "application/json; charset=utf-8", " application/json "})
    EXPECT_TRUE(is_json_content_type(type)) << type;
  for (const char* type : {"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                           "application/jsonx", "text/plain; application/json"})
    EXPECT_FALSE(is_json_content_type(type)) << type;
}

// A route that fails for a reason nobody planned for answers 500 with what went wrong, its
// URIs' passwords masked (such a message may quote a camera's address), as JSON; and one that
// throws something that is not an exception answers 500 all the same.
TEST(HttpErrors, AnUnplannedFailureIs500WithItsCredentialsMasked) {
  HttpServer server(HttpServerOptions{.listen = {"127.0.0.1", 0}});
  server.add_route("GET", "/v1/fails", [](const httplib::Request&, httplib::Response&) {
    throw std::runtime_error("cannot open rtsp://admin:hunter2@10.0.0.8/live: no route to host");
  });
  server.add_route("GET", "/v1/throws", [](const httplib::Request&, httplib::Response&) { throw 42; });
  const int port = server.start();
  httplib::Client client("127.0.0.1", port);
  const auto fails = client.Get("/v1/fails");
  ASSERT_TRUE(fails) << httplib::to_string(fails.error());
  EXPECT_EQ(fails->status, 500);
  const auto body = nlohmann::json::parse(fails->body, nullptr, false);
  EXPECT_EQ(body.value("error", ""), "cannot open rtsp://admin:***@10.0.0.8/live: no route to host") << fails->body;
  EXPECT_EQ(body.value("status", 0), 500) << fails->body;
  EXPECT_EQ(fails->body.find("hunter2"), std::string::npos) << fails->body;
  const auto thrown = client.Get("/v1/throws");
  ASSERT_TRUE(thrown) << httplib::to_string(thrown.error());
  EXPECT_EQ(thrown->status, 500);
  EXPECT_EQ(nlohmann::json::parse(thrown->body, nullptr, false).value("status", 0), 500) << thrown->body;
}

}  // namespace
}  // namespace fp::service
