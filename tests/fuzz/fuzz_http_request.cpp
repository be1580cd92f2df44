// Fuzz target: the bytes a client sends to `framepipe serve`, through the real HTTP layer —
// a listening HttpServer (guarded_server.hpp's connection handling and budgets, the
// framing, method, token and browser checks, httplib's parser) with routes that parse as the
// API's do (the stream name, the PUT body into a StreamSpec). The first byte picks the
// server: even, no token (the browser checks on); odd, a token. The rest is sent on one
// connection, whose write side is then closed; the answer is read until the server closes.
//
// What must hold: no crash, no hang (the server closes within a bound once the client has
// said everything), every answer starts with a well-formed status line and carries no CORS
// header, and the server still answers its probe afterwards. And the framing (issue 43): one
// request in, at most one route run — when the first head mentions a body (a
// Content-Length or Transfer-Encoding, however malformed the line), nothing after it is run
// as a request; a refused framing (400 "request framing", 431) closes the connection, so no
// answer follows it; and no answer is cut into ranges (no 206, no multipart/byteranges).
#include <arpa/inet.h>
#include <cctype>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "pipeline/streams/template.hpp"
#include "service/http_server.hpp"
#include "service/json_response.hpp"
#include "service/stream_json.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using fp::fuzz::require;
using Clock = std::chrono::steady_clock;

const std::string kToken = "fuzz-token-3b9c";

// Routes run, counted by every route's handler (the probes' too).
std::atomic<int> g_routes_run{0};

std::unique_ptr<fp::service::HttpServer> make_server(bool with_token) {
  fp::service::HttpServerOptions options;
  options.listen = {"127.0.0.1", 0};
  if (with_token) options.token = kToken;
  options.allowed_hosts = {"cams.example"};
  // Short bounds: an input that leaves a request unfinished ends at EOF anyway; these only
  // cap what a bug could make the server wait for.
  options.limits.idle = std::chrono::milliseconds(500);
  options.limits.request = std::chrono::milliseconds(2000);
  options.limits.write = std::chrono::milliseconds(2000);
  auto server = std::make_unique<fp::service::HttpServer>(std::move(options));
  using Req = httplib::Request;
  using Res = httplib::Response;
  server->add_probe("/livez", [](const Req&, Res& res) {
    ++g_routes_run;
    fp::service::send_json(res, 200, {{"status", "alive"}});
  });
  server->add_probe("/readyz", [](const Req&, Res& res) {
    ++g_routes_run;
    fp::service::send_json(res, 200, {{"status", "ready"}});
  });
  server->add_route("GET", "/v1/streams", [](const Req&, Res& res) {
    ++g_routes_run;
    fp::service::send_json(res, 200, {{"streams", nlohmann::json::array()}});
  });
  server->add_route("PUT", "/v1/streams/{name}", [](const Req& req, Res& res) {
    ++g_routes_run;
    const std::string name = req.matches[1];
    fp::check_stream_name(name);
    const auto spec = fp::service::stream_spec_from_json(name, req.body, "smooth");
    fp::service::send_json(res, 201, {{"name", spec.name}, {"pipeline", spec.pipeline}});
  });
  server->add_route("DELETE", "/v1/streams/{name}", [](const Req& req, Res&) {
    ++g_routes_run;
    throw fp::service::HttpError(404, "no stream named " + std::string(req.matches[1]));
  });
  server->add_route("POST", "/v1/drain", [](const Req&, Res& res) {
    ++g_routes_run;
    fp::service::send_json(res, 202, {{"draining", true}});
  });
  server->add_route("GET", "/metrics", [](const Req&, Res& res) {
    ++g_routes_run;
    res.set_content("framepipe_up 1\n", "text/plain");
  });
  return server;
}

struct Servers {
  std::unique_ptr<fp::service::HttpServer> open = make_server(false);
  std::unique_ptr<fp::service::HttpServer> guarded = make_server(true);
  int open_port = open->start();
  int guarded_port = guarded->start();
};

Servers& servers() {
  static Servers instance;
  return instance;
}

int connect_to(int port) {
  const int sock = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  require(sock >= 0, "a socket");
  int connected = ::connect(sock, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  if (connected != 0 && errno == EINTR) {
    // libFuzzer's SIGALRM (its -timeout) interrupted the connect, which goes on by itself:
    // wait for it and read its outcome.
    pollfd pfd{sock, POLLOUT, 0};
    while (::poll(&pfd, 1, 10'000) < 0 && errno == EINTR) {
    }
    int error = 0;
    socklen_t length = sizeof(error);
    connected = ::getsockopt(sock, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0 ? 0 : -1;
  }
  require(connected == 0, "the server accepts a connection");
  return sock;
}

// Sends `bytes` (as much as the server takes), closes the write side, and returns all the
// server sends until it closes; aborts when it neither closes nor answers within 10 s.
std::string exchange(int port, std::string_view bytes) {
  const int sock = connect_to(port);
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  std::string received;
  char buffer[4096];
  std::size_t sent = 0;
  bool reading = true;
  while (reading) {
    const bool writing = sent < bytes.size();
    pollfd pfd{sock, static_cast<short>(POLLIN | (writing ? POLLOUT : 0)), 0};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    require(left > 0, "the server ends the connection within 10 s");
    const int ready = ::poll(&pfd, 1, static_cast<int>(left));
    // libFuzzer's -timeout is a SIGALRM every timeout/2+1 s; when it lands on this thread the
    // poll is interrupted, which is no verdict on the server (it failed the run every ~8 s).
    if (ready < 0 && errno == EINTR) continue;
    require(ready > 0, "the server ends the connection within 10 s");
    if (pfd.revents & POLLIN) {
      const ssize_t n = ::recv(sock, buffer, sizeof(buffer), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      received.append(buffer, static_cast<std::size_t>(n));
    }
    if (writing && (pfd.revents & POLLOUT)) {
      const ssize_t n = ::send(sock, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) sent += static_cast<std::size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) sent = bytes.size();  // it stopped reading
      if (sent == bytes.size()) ::shutdown(sock, SHUT_WR);
    }
    if ((pfd.revents & (POLLHUP | POLLERR)) && !(pfd.revents & POLLIN)) reading = false;
  }
  ::close(sock);
  return received;
}

void check_answers(std::string_view received) {
  require(received.empty() || received.substr(0, 9) == "HTTP/1.1 ", "an answer starts with a status line");
  for (std::size_t at = 0; (at = received.find("\nHTTP/1.1 ", at)) != std::string_view::npos; ++at) {
    const auto status = received.substr(at + 10, 3);
    require(status.size() == 3 && status[0] >= '1' && status[0] <= '5', "a status line has a 3-digit status");
  }
  // A header begins a line; a body may quote the client's own text (a refused Host is
  // named in the error), which is no header. Header names are case-insensitive.
  for (std::size_t at = 0; (at = received.find('\n', at)) != std::string_view::npos; ++at) {
    const std::string_view line = received.substr(at + 1, 15);
    bool cors = line.size() == 15;
    for (std::size_t i = 0; cors && i < line.size(); ++i)
      cors = std::tolower(static_cast<unsigned char>(line[i])) == "access-control-"[i];
    require(!cors, "no CORS header is ever sent");
  }
}

// Where `word` (lower case) is in `text`, any case, from `from`; npos when it is not.
std::size_t find_ignoring_case(std::string_view text, std::string_view word, std::size_t from = 0) {
  for (std::size_t at = from; at + word.size() <= text.size(); ++at) {
    std::size_t i = 0;
    while (i < word.size() && std::tolower(static_cast<unsigned char>(text[at + i])) == word[i]) ++i;
    if (i == word.size()) return at;
  }
  return std::string_view::npos;
}

int count_answers(std::string_view received) {
  int answers = received.substr(0, 9) == "HTTP/1.1 " ? 1 : 0;
  for (std::size_t at = 0; (at = received.find("\nHTTP/1.1 ", at)) != std::string_view::npos; ++at) ++answers;
  return answers;
}

// Where a header line (however malformed) names `word` (lower case): at the head's start or
// after a CR or LF, past any blanks. Not inside a value: "X-Long: aaaTransfer-Encoding:
// chunked" is one header, X-Long, as the server reads it (a fuzzer's find, which this check
// once took for a body).
std::size_t find_header_line(std::string_view head, std::string_view word, std::size_t from = 0) {
  for (std::size_t at = from; (at = find_ignoring_case(head, word, at)) != std::string_view::npos; ++at) {
    std::size_t before = at;
    while (before > 0 && (head[before - 1] == ' ' || head[before - 1] == '\t')) --before;
    if (before == 0 || head[before - 1] == '\r' || head[before - 1] == '\n') return at;
  }
  return std::string_view::npos;
}

// The first head as a lenient reader would find it: up to the first blank line, however its
// lines end. It mentions a body when a line of it names Content-Length or Transfer-Encoding.
bool first_head_mentions_a_body(std::string_view sent) {
  std::size_t start = 0;
  while (start < sent.size() && (sent[start] == '\r' || sent[start] == '\n')) ++start;
  std::size_t end = sent.size();
  for (const std::string_view blank : {"\r\n\r\n", "\n\n", "\n\r\n"})
    end = std::min(end, sent.find(blank, start));
  const std::string_view head = sent.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  if (find_header_line(head, "transfer-encoding") != std::string_view::npos) return true;
  // A length other than 0 on the rest of its line (after whatever ':' and blanks).
  for (std::size_t at = 0; (at = find_header_line(head, "content-length", at)) != std::string_view::npos; ++at)
    for (std::size_t i = at + 14; i < head.size() && head[i] != '\n' && head[i] != '\r'; ++i)
      if (head[i] >= '1' && head[i] <= '9') return true;
  return false;
}

void check_framing(std::string_view sent, std::string_view received, int routes_run) {
  require(routes_run <= count_answers(received), "a route runs only for a request it answers");
  if (first_head_mentions_a_body(sent)) require(routes_run <= 1, "nothing after a request with a body runs as a request");
  // A refused framing is the connection's last answer.
  for (std::size_t at = 0; (at = received.find("HTTP/1.1 ", at)) != std::string_view::npos; ++at) {
    const std::size_t next = received.find("\nHTTP/1.1 ", at);
    const std::string_view answer = received.substr(at, next == std::string_view::npos ? std::string_view::npos : next - at);
    const bool refused_framing = answer.substr(9, 3) == "431" || answer.find("request framing") != std::string_view::npos;
    if (refused_framing) require(next == std::string_view::npos, "no answer follows a refused framing");
    require(answer.substr(9, 3) != "206", "no answer is a range of the route's");
    require(answer.find("multipart/byteranges") == std::string_view::npos, "no answer is cut into ranges");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  auto& s = servers();
  const int port = (data[0] & 1) ? s.guarded_port : s.open_port;
  const std::string_view sent(reinterpret_cast<const char*>(data) + 1, size - 1);
  const int routes_before = g_routes_run;
  const std::string received = exchange(port, sent);
  check_answers(received);
  check_framing(sent, received, g_routes_run - routes_before);
  static unsigned runs = 0;
  if (++runs % 64 == 0) {
    const std::string probe = exchange(port, "GET /livez HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    require(probe.substr(0, 12) == "HTTP/1.1 200", "the server still answers /livez");
  }
  return 0;
}
