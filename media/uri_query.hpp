// The query of a URI split into its items, for the parsers of framepipe's own URI forms
// (testsrc://, v4l2://, rtsp:// transport, output URLs). Pure string work.
#pragma once

#include <string_view>
#include <vector>

namespace fp {

struct QueryItem {
  std::string_view text;   // "key=value" as written (may be empty: "a=1&&b=2")
  std::string_view key;    // before the first '=', or the whole item
  std::string_view value;  // after it; empty without one
  bool has_value = false;  // the item has an '='
};

// "a=1&b&c=" -> {a, 1}, {b, no value}, {c, ""}; an empty query gives no items. Views into `query`.
std::vector<QueryItem> query_items(std::string_view query);

}  // namespace fp
