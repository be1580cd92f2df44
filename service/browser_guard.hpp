// What keeps a web page from driving a service that has no token (loopback, the default).
// A browser sends a page's requests to 127.0.0.1 as readily as anywhere: a cross-site
// `fetch(..., {mode: "no-cors", method: "POST"})` with a text/plain body needs no CORS
// permission to arrive, and DNS rebinding (evil.example resolving to 127.0.0.1) makes the
// page "same-origin" with the service. The three checks, each answering what a page cannot
// fake:
//   Host     the name the browser connected to: the listen address, a loopback name or an
//            --allow-host name (a rebinding page sends its own name)
//   Origin   when a browser sends one, the page's origin must name one of those hosts
//   Content-Type  a state-changing body must say application/json, which a page can only
//            send cross-origin after a CORS preflight (OPTIONS), which the service refuses
// With a token these are not needed: a page cannot attach the Authorization header to a
// cross-origin request without that preflight.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "service/listen_address.hpp"

namespace fp::service {

class BrowserGuard {
 public:
  // `allowed_hosts`: names (or addresses) beyond the listen address and loopback names
  // that clients may use to reach the service (serve --allow-host).
  BrowserGuard(ListenAddress listen, std::vector<std::string> allowed_hosts);

  // Why a request with this Host header is refused (403), or nothing.
  std::optional<std::string> host_problem(std::string_view host_header) const;
  // Why a request with this Origin header is refused (403), or nothing. An empty header
  // (none sent: curl, Prometheus, a same-origin GET) passes.
  std::optional<std::string> origin_problem(std::string_view origin_header) const;

 private:
  bool allowed(std::string_view host) const;
  ListenAddress listen_;
  std::vector<std::string> allowed_hosts_;  // lower case
};

// "application/json", any case, with or without parameters ("; charset=utf-8").
bool is_json_content_type(std::string_view content_type);

// The host of a Host header or of an Origin's authority, lower case, without port, brackets
// or a trailing dot: "[::1]:8080" -> "::1", "LocalHost.:80" -> "localhost". Empty when
// the text is not one.
std::string host_name_of(std::string_view authority);

}  // namespace fp::service
