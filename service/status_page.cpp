#include "service/status_page.hpp"

#include <array>
#include <string>

namespace fp::service {
namespace detail {
// status_page_html.cpp, generated from status_page.html by cmake/embed_text.cmake: the page,
// and the CSP sources ('sha256-...') of its inline <script> and <style>.
extern const std::string_view status_page_html_text;
extern const std::string_view status_page_html_text_script_hashes;
extern const std::string_view status_page_html_text_style_hashes;
}  // namespace detail

std::string_view status_page_html() { return detail::status_page_html_text; }

std::span<const HttpHeader> status_page_headers() {
  // The page's own inline script and style, allowed by their hashes rather than by
  // 'unsafe-inline': markup that reached the page some other way (an injected element, an
  // onerror attribute) would not run, on top of the page inserting data only as text.
  // connect-src 'self': the API; img-src blob: the thumbnails, fetched with the token.
  static const std::string csp = "default-src 'none'; script-src " + std::string(detail::status_page_html_text_script_hashes) +
                                 "; style-src " + std::string(detail::status_page_html_text_style_hashes) +
                                 "; connect-src 'self'; img-src 'self' blob:; base-uri 'none'; form-action 'none'; "
                                 "frame-ancestors 'none'";
  static const std::array headers{
      HttpHeader{"Content-Security-Policy", csp},
      HttpHeader{"X-Content-Type-Options", "nosniff"},
      HttpHeader{"Referrer-Policy", "no-referrer"},
      HttpHeader{"Cache-Control", "no-cache"},
  };
  return headers;
}

}  // namespace fp::service
