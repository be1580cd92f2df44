// The HTTP layer's decisions on a request's headers, one by one (the service tests check
// them against a real server): the framing it refuses and the bodies it closes after
// (request_framing.hpp), and what keeps a web page out without a token (browser_guard.hpp).
#include <gtest/gtest.h>

#include "service/browser_guard.hpp"
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

}  // namespace
}  // namespace fp::service
