// The one HTTP listener of `framepipe serve`: the API, /metrics and the page all go through
// it. It owns what every route shares, decided before a byte of a body is read — framing
// that could be read two ways (400), the probes' methods, the bearer token, and without a
// token the checks that keep a web page out (browser_guard.hpp) — and then the body limit,
// the connection limits (guarded_server.hpp), JSON errors for anything httplib answers
// itself (404, 413), no CORS headers; so that a route is only: parse, call the manager,
// render JSON.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "service/browser_guard.hpp"
#include "service/guarded_server.hpp"
#include "service/listen_address.hpp"

namespace fp::service {

struct HttpServerOptions {
  ListenAddress listen{"127.0.0.1", 8080};
  // The bearer token every request must carry (but the probes); empty: none asked, which
  // `framepipe serve` allows on a loopback address only.
  std::string token;
  // Without a token: the names besides the listen address and loopback names that clients
  // may reach the service by (the Host header; serve --allow-host).
  std::vector<std::string> allowed_hosts;
  std::size_t max_body_bytes = 64 * 1024;  // larger bodies: 413
  ConnectionLimits limits;
};

class HttpServer {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
  // Called once per answered request with its route's pattern ("/v1/streams/{name}", or
  // "unmatched") and status: what the request metrics count.
  using RequestObserver = std::function<void(const std::string& route, int status)>;

  explicit HttpServer(HttpServerOptions options);
  ~HttpServer();  // stop()
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Before start(). `pattern` is a path with {param} parts ("/v1/streams/{name}"), each
  // matching one path segment, in order in req.matches[1..]. A handler may throw HttpError
  // or StreamRejected (their status and message become the answer) or anything else (500,
  // message masked).
  void add_route(const std::string& method, const std::string& pattern, Handler handler);
  // A probe: GET (and HEAD) only, answered without the token and whatever the Host (an
  // orchestrator's liveness and readiness checks carry none and name the pod's address;
  // they say nothing secret).
  void add_probe(const std::string& path, Handler handler);
  void on_request(RequestObserver observer);

  // Binds and serves on a thread of its own; returns the port (the one taken for port 0).
  // Throws std::runtime_error "cannot listen on ADDRESS: REASON".
  int start();
  // Stops listening and waits for the connections being served (each is bounded).
  void stop();
  // The listener's thread is serving.
  bool running() const;

 private:
  void install_common_handlers();
  // Why a request is refused before its body is read (status and message into `res`), or
  // false: the framing, the method, the token or the browser checks.
  bool refused(const httplib::Request& req, httplib::Response& res) const;
  HttpServerOptions options_;
  BrowserGuard browser_guard_;
  std::set<std::string> probes_;
  GuardedServer server_;
  RequestObserver observer_;
  std::thread thread_;
  std::atomic<bool> started_{false};
};

}  // namespace fp::service
