#include "service/client_json.hpp"

#include <fmt/format.h>

#include "service/json_response.hpp"

namespace fp::service {

using nlohmann::json;

json parse_client_json(const std::string& body) {
  // nlohmann's parser itself keeps its nesting on the heap; the callback sees each value's
  // depth as it opens, so a body nested too deep is refused at its (kMaxJsonDepth+1)-th
  // bracket, before anything deeper is read or built.
  const json::parser_callback_t depth_guard = [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw HttpError(400, fmt::format("request body: nested deeper than {} levels", kMaxJsonDepth));
    return true;
  };
  try {
    return json::parse(body, depth_guard);
  } catch (const json::parse_error& e) {
    // Only the position: the parser's own message quotes the text, which may hold a password.
    throw HttpError(400, fmt::format("request body: not valid JSON (at byte {})", e.byte));
  } catch (const json::exception&) {
    // A number beyond a double (1e3083) is out_of_range, not a parse_error: still the
    // client's mistake, and still not quoted back. (Found by fuzz_stream_spec_json.)
    throw HttpError(400, "request body: not valid JSON (a number out of range)");
  }
}

void check_field_length(std::string_view key, std::string_view text, std::size_t max_bytes) {
  if (text.size() > max_bytes)
    throw HttpError(400, fmt::format("{}: {} bytes, longer than the {} allowed", key, text.size(), max_bytes));
}

std::string string_field(const json& object, std::string_view prefix, const char* key, bool required,
                         std::size_t max_bytes) {
  const auto name = fmt::format("{}{}", prefix, key);
  const auto found = object.find(key);
  if (found == object.end()) {
    if (required) throw HttpError(400, fmt::format("{}: missing", name));
    return "";
  }
  if (!found->is_string()) throw HttpError(400, fmt::format("{}: expected a string, got {}", name, found->type_name()));
  const auto& text = found->get_ref<const std::string&>();
  check_field_length(name, text, max_bytes);
  return text;
}

}  // namespace fp::service
