// framepipe serve reads a request only when it can frame it exactly (issue 43): a head with
// a line ended by a bare LF, whitespace before a colon, a folded line, a control character or
// a line over 8 KiB is answered 400 (431 when too large) and its connection closed, so that
// nothing after it (a body, the rest of the headers) is ever read as a request; and a Range
// header is ignored everywhere, so no small request makes an answer larger than its route
// makes. Against a real `framepipe serve`, with the exact bytes a hostile client sends.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/service/curl_client.hpp"
#include "tests/service/raw_http_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

const std::string kEndlessStream = R"({"uri": "testsrc://64x48@30?frames=0"})";

// Each head below carries a DELETE of cam1 after it, as its body or as the rest of its
// lines: a server that misreads the framing runs the DELETE as a second request.
struct Misframed {
  std::string what;
  std::string head;
  int status;
};

std::vector<Misframed> misframed_heads(const std::string& smuggled) {
  const std::string length = std::to_string(smuggled.size());
  const std::string start = "POST /v1/drain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
  return {
      {"Content-Length ended by a bare LF", start + "Content-Length: " + length + "\n\r\n", 400},
      {"space before the colon", start + "Content-Length : " + length + "\r\n\r\n", 400},
      {"tab before the colon", start + "Content-Length\t: " + length + "\r\n\r\n", 400},
      {"a folded line", start + "X-Fold: a\r\n b\r\nContent-Length: " + length + "\r\n\r\n", 400},
      {"a bare LF ends the head", start + "Content-Length: " + length + "\r\n\n", 400},
      {"a bare CR inside a line", start + "X-A: a\rb\r\nContent-Length: " + length + "\r\n\r\n", 400},
      {"a NUL in a value", start + std::string("X-A: a\0b\r\n", 10) + "Content-Length: " + length + "\r\n\r\n", 400},
      {"a request line with two spaces", "GET  /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 400},
      // The rest of the headers after an over-long line: httplib refused the line and read on.
      {"a header line over 8 KiB", "GET /livez HTTP/1.1\r\nX-Long: " + std::string(9000, 'a') + "\r\n\r\n", 431},
  };
}

TEST(ServeFraming, AHeadNotFramedExactlyIsRefusedAndItsConnectionClosed) {
  ServeProcess server("framing");
  ASSERT_SERVING(server);
  ASSERT_EQ(curl_with_body("PUT", server.url("/v1/streams/cam1"), kEndlessStream).status, 201);
  const std::string& smuggled = kSmuggledDeleteOfCam1;
  for (const auto& [what, head, status] : misframed_heads(smuggled)) {
    RawConnection connection(server.port());
    ASSERT_TRUE(connection.connected());
    connection.send(head + smuggled);
    const std::string answers = connection.receive_until_closed(time_bound(10));
    EXPECT_EQ(first_status(answers), status) << what << ":\n" << answers;
    EXPECT_EQ(count_answers(answers), 1) << what << ":\n" << answers;
    EXPECT_TRUE(connection.closed()) << what << ": the connection stayed open";
    EXPECT_TRUE(listed(server, "cam1")) << what << ": the DELETE after it ran";
  }
  EXPECT_EQ(curl("GET", server.url("/readyz")).status, 200) << "a smuggled drain ran";
  // Framed exactly, the same requests are served.
  RawConnection fine(server.port());
  fine.send("GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: a b\t c\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(first_status(fine.receive_until_closed(time_bound(10))), 200);
}

// An unauthenticated GET / with thousands of ranges made httplib build an answer of tens of
// megabytes (multipart/byteranges, one part per range); /metrics the same for any Host.
TEST(ServeFraming, RangeIsIgnoredSoNoAnswerGrowsWithTheRequest) {
  ServeProcess server("ranges");
  ASSERT_SERVING(server);
  std::string ranges = "bytes=0-";
  for (int i = 0; i < 1500; ++i) ranges += ",0-";
  for (const std::string path : {"/", "/metrics", "/v1/info"}) {
    const auto plain = curl("GET", server.url(path));
    ASSERT_EQ(plain.status, 200) << path;
    for (const std::string& range : {ranges, std::string("bytes=0-0"), std::string("bytes=junk")}) {
      RawConnection connection(server.port());
      ASSERT_TRUE(connection.connected());
      connection.send("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nRange: " + range + "\r\nConnection: close\r\n\r\n");
      const std::string answer = connection.receive_until_closed(time_bound(10));
      EXPECT_EQ(first_status(answer), 200) << path << " Range: " << range.substr(0, 20) << "\n" << answer.substr(0, 300);
      EXPECT_EQ(answer.find("multipart/byteranges"), std::string::npos) << path;
      // The whole answer, once: its body as long as without Range (metrics may move a little).
      const auto body_at = answer.find("\r\n\r\n");
      ASSERT_NE(body_at, std::string::npos) << path;
      const double ratio = static_cast<double>(answer.size() - body_at - 4) / static_cast<double>(plain.body.size());
      EXPECT_GT(ratio, 0.8) << path;
      EXPECT_LT(ratio, 1.25) << path << ": an answer of " << answer.size() << " bytes";
    }
  }
}

}  // namespace
}  // namespace fp::test
