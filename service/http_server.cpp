#include "service/http_server.hpp"

#include <fmt/format.h>

#include <regex>
#include <stdexcept>

#include "media/stream_uri.hpp"
#include "pipeline/streams/manager.hpp"
#include "service/bearer_token.hpp"
#include "service/json_response.hpp"
#include "service/request_framing.hpp"

namespace fp::service {

namespace {

// The pattern of the route a worker thread is answering, for the observer. httplib calls
// the handler and then the logger on the same thread, for each request in turn.
thread_local std::string t_route;

std::string route_regex(const std::string& pattern) {
  static const std::regex param(R"(\{[a-z_]+\})");
  std::string escaped;
  for (char c : pattern) {
    if (std::string_view(".^$|()[]*+?\\").find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return std::regex_replace(escaped, param, "([^/]+)");
}

const char* reason_of(int status) {
  switch (status) {
    case 400: return "bad request";
    case 401: return "unauthorized";
    case 404: return "not found";
    case 405: return "method not allowed";
    case 413: return "request body too large";
    case 414: return "request URI too long";
    case 431: return "request headers too large";
    case 503: return "service unavailable";
    default: return status >= 500 ? "internal error" : "request refused";
  }
}

}  // namespace

HttpServer::HttpServer(HttpServerOptions options)
    : options_(std::move(options)),
      browser_guard_(options_.listen, options_.allowed_hosts),
      server_(options_.limits) {
  install_common_handlers();
}

HttpServer::~HttpServer() { stop(); }

void HttpServer::install_common_handlers() {
  server_.set_payload_max_length(options_.max_body_bytes);
  server_.set_keep_alive_max_count(options_.limits.requests_per_connection);
  const auto idle_s = std::chrono::duration_cast<std::chrono::seconds>(options_.limits.idle).count();
  server_.set_keep_alive_timeout(std::max<long>(1, idle_s));
  server_.set_read_timeout(std::chrono::duration_cast<std::chrono::microseconds>(options_.limits.request));
  server_.set_write_timeout(std::chrono::duration_cast<std::chrono::microseconds>(options_.limits.write));

  // Before routing, and before a byte of the body is read: whatever refuses a request.
  server_.set_pre_routing_handler([this](const httplib::Request& req, httplib::Response& res) {
    return refused(req, res) ? httplib::Server::HandlerResponse::Handled : httplib::Server::HandlerResponse::Unhandled;
  });
  // A client that waits for "100 Continue" before sending its body gets the refusal
  // instead, and never sends it.
  server_.set_expect_100_continue_handler([this](const httplib::Request& req, httplib::Response& res) {
    return refused(req, res) ? res.status : 100;
  });

  // What httplib answers itself (no route: 404, a body over the limit: 413, a bad request
  // line: 400) gets the API's JSON error too.
  server_.set_error_handler(httplib::Server::HandlerWithResponse([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    // The body's budget ran out while httplib read it: it says 400; say which. (A head too
    // large never reaches httplib: the intake answers it 431.)
    if (res.status == 400 && request_overrun_on_this_thread() == RequestOverrun::body) res.status = 413;
    std::string message = reason_of(res.status);
    if (res.status == 404) message = fmt::format("no route for {} {}", req.method, req.path.substr(0, 200));
    send_error(res, res.status, message);
    return httplib::Server::HandlerResponse::Handled;
  }));

  server_.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      send_error(res, 500, e.what());
    } catch (...) {
      send_error(res, 500, "unknown failure");
    }
  });

  // Probes, and requests with the valid token, have workers of their own: no number of
  // clients without it can keep them from an answer.
  server_.set_priority([this](const RequestHead& head) {
    if ((head.method == "GET" || head.method == "HEAD") && probes_.count(std::string(head.path()))) return true;
    if (options_.token.empty()) return false;
    const auto authorization = head.values("Authorization");
    return authorization.size() == 1 && bearer_token_matches(authorization.front(), options_.token);
  });
  // Refused before httplib saw them (not framed exactly, or too large): counted as the
  // requests refused in the pre-routing handler are.
  server_.set_refusal_observer([this](int status) {
    if (observer_) observer_(status == 431 ? "unmatched" : "bad_request", status);
  });

  server_.set_logger([this](const httplib::Request&, const httplib::Response& res) {
    const std::string route = t_route.empty() ? "unmatched" : t_route;
    t_route.clear();
    if (observer_) observer_(route, res.status);
  });
}

void HttpServer::add_route(const std::string& method, const std::string& pattern, Handler handler) {
  auto wrapped = [this, pattern, handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    t_route = pattern;
    try {
      // httplib checks a Content-Length against the limit, but not what a chunked body
      // came to (its bytes were bounded as they arrived, guarded_server.hpp).
      if (req.body.size() > options_.max_body_bytes)
        throw HttpError(413, fmt::format("request body over {} bytes", options_.max_body_bytes));
      handler(req, res);
    } catch (const HttpError& e) {
      send_error(res, e.status(), e.what(), e.extra());
    } catch (const StreamRejected& e) {
      send_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, e.what());
    }
  };
  const std::string regex = route_regex(pattern);
  if (method == "GET") server_.Get(regex, wrapped);
  else if (method == "PUT") server_.Put(regex, wrapped);
  else if (method == "POST") server_.Post(regex, wrapped);
  else if (method == "DELETE") server_.Delete(regex, wrapped);
  else throw std::invalid_argument("HttpServer::add_route: unsupported method " + method);
}

void HttpServer::add_probe(const std::string& path, Handler handler) {
  probes_.insert(path);
  add_route("GET", path, std::move(handler));
}

bool HttpServer::refused(const httplib::Request& req, httplib::Response& res) const {
  const auto refuse = [&](const char* route, int status, const std::string& message) {
    t_route = route;
    send_error(res, status, message);
    return true;
  };
  if (const auto problem = framing_problem(req)) return refuse("bad_request", 400, "request framing: " + *problem);
  // OPTIONS is refused for every path, with no Access-Control-* header, so a browser on
  // another origin is never allowed in.
  if (req.method == "OPTIONS") {
    refuse("OPTIONS", 405, "method OPTIONS not allowed (no cross-origin access)");
    res.set_header("Allow", "GET, PUT, POST, DELETE");
    return true;
  }
  if (probes_.count(req.path)) {
    if (req.method == "GET" || req.method == "HEAD") return false;
    refuse("method_not_allowed", 405, fmt::format("{} answers GET and HEAD only", req.path));
    res.set_header("Allow", "GET, HEAD");
    return true;
  }
  if (!options_.token.empty()) {
    // The status page itself: a browser's navigation cannot send Authorization, and the
    // page holds no data (it asks /v1/ for everything, with the token, which those routes check).
    if (req.method == "GET" && req.path == "/") return false;
    if (bearer_token_matches(req.get_header_value("Authorization"), options_.token)) return false;
    refuse("unauthorized", 401, "missing or wrong bearer token (send Authorization: Bearer TOKEN)");
    res.set_header("WWW-Authenticate", "Bearer realm=\"framepipe\"");
    return true;
  }
  // No token: keep web pages out (browser_guard.hpp). Prometheus scrapes by the address it
  // was given, which may be any of the machine's.
  if (req.path != "/metrics")
    if (const auto problem = browser_guard_.host_problem(req.get_header_value("Host")))
      return refuse("forbidden", 403, *problem);
  if (const auto problem = browser_guard_.origin_problem(req.get_header_value("Origin")))
    return refuse("forbidden", 403, *problem);
  const bool changes_state = req.method != "GET" && req.method != "HEAD";
  if (changes_state && req.method != "DELETE" &&
      (req.get_header_value_count("Content-Type") != 1 || !is_json_content_type(req.get_header_value("Content-Type"))))
    return refuse("unsupported_media_type", 415,
                  fmt::format("{} needs Content-Type: application/json (a web page cannot send it to another site)",
                              req.method));
  return false;
}

void HttpServer::on_request(RequestObserver observer) { observer_ = std::move(observer); }

int HttpServer::start() {
  const auto& listen = options_.listen;
  int port = listen.port;
  if (port == 0) {
    port = server_.bind_to_any_port(listen.host);
    if (port < 0) throw std::runtime_error(fmt::format("cannot listen on {}: bind failed", listen.to_string()));
  } else if (!server_.bind_to_port(listen.host, port)) {
    throw std::runtime_error(
        fmt::format("cannot listen on {}: the address is in use or not this machine's", listen.to_string()));
  }
  server_.widen_backlog();
  thread_ = std::thread([this] { server_.listen_after_bind(); });
  started_ = true;
  // Serving before this returns: stop() on a server that has not begun listening would
  // do nothing, and the listener would then never end.
  for (int i = 0; i < 500 && !server_.is_running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return port;
}

void HttpServer::stop() {
  if (!started_.exchange(false)) return;
  server_.stop();
  if (thread_.joinable()) thread_.join();
}

bool HttpServer::running() const { return started_ && server_.is_running(); }

}  // namespace fp::service
