// The status page as the binary serves it: the page embedded at build time is the one in the
// source tree (an edit rebuilds it), it is self-contained (nothing loaded from elsewhere),
// it never inserts data as markup, and it goes out with a Content-Security-Policy that
// allows nothing beyond it. Its behaviour in a browser is tests/service/browser.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "service/status_page.hpp"
#include "tests/text_files.hpp"

using fp::test::read_text;

namespace {

std::string header(std::string_view name) {
  for (const auto& h : fp::service::status_page_headers())
    if (h.name == name) return std::string(h.value);
  return {};
}

TEST(StatusPage, IsTheSourceTreesPage) {
  const std::string source = read_text(FRAMEPIPE_SOURCE_DIR "/service/status_page.html");
  ASSERT_FALSE(source.empty());
  const std::string_view embedded = fp::service::status_page_html();
  if (embedded != source) {
    std::size_t at = 0;
    while (at < embedded.size() && at < source.size() && embedded[at] == source[at]) ++at;
    ADD_FAILURE() << "the embedded page (" << embedded.size() << " bytes) differs from service/status_page.html ("
                  << source.size() << " bytes) from byte " << at << ": the build did not regenerate it\n  embedded: "
                  << embedded.substr(at, 60) << "\n  source:   " << source.substr(at, 60);
  }
  EXPECT_TRUE(source.starts_with("<!doctype html>"));
}

TEST(StatusPage, LoadsNothingFromElsewhere) {
  const std::string page(fp::service::status_page_html());
  // No element that fetches: external scripts, style sheets, fonts, frames, or images by URL
  // (the thumbnails are blobs the script makes from its own requests).
  for (const char* pattern : {R"(<script[^>]*\ssrc\s*=)", R"(<link\b)", R"(<iframe\b)", R"(<img[^>]*\ssrc\s*=)",
                              R"(@import)", R"(https?://)", R"(["'(]//[a-z])"}) {
    EXPECT_FALSE(std::regex_search(page, std::regex(pattern, std::regex::icase))) << "the page matches " << pattern;
  }
  // CSS url(...) (case matters: the script's URL.createObjectURL is how thumbnails are shown).
  EXPECT_FALSE(std::regex_search(page, std::regex(R"(\burl\s*\()"))) << "the page's CSS loads a url()";
  // Requests only to its own server, by absolute path.
  const std::regex fetched(R"(request\(\s*"([^"]*))");
  int requests = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), fetched); it != std::sregex_iterator(); ++it, ++requests)
    EXPECT_TRUE((*it)[1].str().starts_with("/v1/")) << (*it)[1].str();
  EXPECT_EQ(requests, 3) << "the page requests /v1/streams, /v1/info and each snapshot";
}

TEST(StatusPage, NeverInsertsMarkup) {
  const std::string page(fp::service::status_page_html());
  // A stream's error text and URI come from users: the page sets them as text only.
  for (const char* sink : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"})
    EXPECT_EQ(page.find(sink), std::string::npos) << "the page uses " << sink;
  EXPECT_NE(page.find("textContent"), std::string::npos);
}

TEST(StatusPage, HeadersConfineThePage) {
  const std::string csp = header("Content-Security-Policy");
  ASSERT_FALSE(csp.empty());
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("connect-src 'self'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("frame-ancestors 'none'"), std::string::npos) << csp;
  // The page's one script and one style, by hash: no other inline code may run.
  EXPECT_TRUE(std::regex_search(csp, std::regex(R"(script-src 'sha256-[A-Za-z0-9+/]{43}='; )"))) << csp;
  EXPECT_TRUE(std::regex_search(csp, std::regex(R"(style-src 'sha256-[A-Za-z0-9+/]{43}='; )"))) << csp;
  EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
  // Only the page's own origin, inline code and blobs: no host, no scheme of the network.
  EXPECT_FALSE(std::regex_search(csp, std::regex(R"(https?:|\*|data:)"))) << csp;
  EXPECT_EQ(header("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(fp::service::kStatusPageContentType, "text/html; charset=utf-8");
}

}  // namespace
