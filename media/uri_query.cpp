#include "media/uri_query.hpp"

namespace fp {

std::vector<QueryItem> query_items(std::string_view query) {
  std::vector<QueryItem> items;
  if (query.empty()) return items;
  for (std::size_t start = 0; start <= query.size();) {
    auto end = query.find('&', start);
    if (end == std::string_view::npos) end = query.size();
    QueryItem item;
    item.text = query.substr(start, end - start);
    const auto equals = item.text.find('=');
    item.has_value = equals != std::string_view::npos;
    item.key = item.text.substr(0, equals);
    if (item.has_value) item.value = item.text.substr(equals + 1);
    items.push_back(item);
    start = end + 1;
  }
  return items;
}

}  // namespace fp
