// How a request says where its body ends, checked before any of the body is read. Two
// readers of one byte stream (a proxy and this server, or this server and itself on a kept
// connection) must agree where a request ends, or a body becomes a request of its own
// (request smuggling): so framing that could be read two ways is refused, and a connection
// that carried a body is not used again (guarded_server.cpp).
#pragma once

#include <httplib.h>

#include <optional>
#include <string>
#include <string_view>

namespace fp::service {

// Why the request's framing is refused (400), or nothing: two Content-Length headers,
// Content-Length and Transfer-Encoding together, a Transfer-Encoding other than one
// `chunked`, a Content-Length that is not a plain decimal number.
std::optional<std::string> framing_problem(const httplib::Request& req);

// A header value without the spaces and tabs around it (OWS).
std::string_view trimmed(std::string_view text);
// ASCII letters compared without case: header names.
bool equals_ignoring_case(std::string_view a, std::string_view b);

// The request announces a body: a Transfer-Encoding, or a Content-Length other than 0.
bool carries_body(const httplib::Request& req);

}  // namespace fp::service
