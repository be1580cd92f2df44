#include "service/status_page.hpp"

#include <array>

namespace fp::service {
namespace detail {
extern const std::string_view status_page_html_text;  // status_page_html.cpp, generated from status_page.html
}

std::string_view status_page_html() { return detail::status_page_html_text; }

std::span<const HttpHeader> status_page_headers() {
  // 'unsafe-inline' is the page's own script and style (it has no other); a value injected
  // into it cannot run, because the page inserts data only as text (textContent), never as
  // markup. img-src blob: are the thumbnails, fetched with the token and shown as blobs.
  static constexpr std::array headers{
      HttpHeader{"Content-Security-Policy",
                 "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
                 "connect-src 'self'; img-src 'self' blob:; base-uri 'none'; form-action 'none'; "
                 "frame-ancestors 'none'"},
      HttpHeader{"X-Content-Type-Options", "nosniff"},
      HttpHeader{"Referrer-Policy", "no-referrer"},
      HttpHeader{"Cache-Control", "no-cache"},
  };
  return headers;
}

}  // namespace fp::service
