// The status page of `framepipe serve` (GET /): one self-contained HTML page — its CSS and
// script inline, no external asset — that reads the JSON API from the browser. The page is
// service/status_page.html, embedded into the binary at build time (cmake/embed_text.cmake).
//
// GET / must answer without the bearer token: a browser's navigation cannot send an
// Authorization header, and the page holds no data (it fetches everything, token attached,
// from /v1/...). The headers below go with it.
#pragma once

#include <span>
#include <string_view>

namespace fp::service {

// The page, as served.
std::string_view status_page_html();

inline constexpr std::string_view kStatusPageContentType = "text/html; charset=utf-8";

struct HttpHeader {
  std::string_view name;
  std::string_view value;
};

// The headers to send with the page besides its Content-Type: a Content-Security-Policy that
// allows only the page's own inline script and style (by their SHA-256, computed at build
// time), requests to its own origin and the thumbnails it makes from those (blob: images),
// and nothing else; no framing, no sniffing, no referrer.
std::span<const HttpHeader> status_page_headers();

}  // namespace fp::service
