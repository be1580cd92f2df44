#include "core/printable_text.hpp"

namespace fp {

void append_printable(std::string& out, std::string_view text) {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7f) {
      out.push_back(c);
    } else if (c == '\n') {
      out.append("\\n");
    } else if (c == '\r') {
      out.append("\\r");
    } else if (c == '\t') {
      out.append("\\t");
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      out.append({'\\', 'x', kHex[byte >> 4], kHex[byte & 0xf]});
    }
  }
}

std::optional<std::string> control_character_problem(std::string_view text) {
  for (std::size_t at = 0; at < text.size(); ++at) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte < 0x20 || byte == 0x7f)
      return "holds a control character (" + printable_text(text.substr(at, 1)) + " at byte " + std::to_string(at) + ")";
  }
  return std::nullopt;
}

std::string printable_text(std::string_view text) {
  std::string out;
  append_printable(out, text);
  return out;
}

}  // namespace fp
