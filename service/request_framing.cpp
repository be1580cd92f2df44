#include "service/request_framing.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace fp::service {

namespace {

// 1 to 18 digits: a length that fits any integer type it is read into, with no sign, blank
// or second value ("5, 5") that two parsers might read differently.
bool plain_length(std::string_view text) {
  return !text.empty() && text.size() <= 18 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

std::optional<std::string> framing_problem(const httplib::Request& req) {
  const auto lengths = req.get_header_value_count("Content-Length");
  const auto encodings = req.get_header_value_count("Transfer-Encoding");
  if (lengths > 1) return "more than one Content-Length header";
  if (lengths == 1 && encodings > 0) return "both Content-Length and Transfer-Encoding";
  if (encodings > 1) return "more than one Transfer-Encoding header";
  if (encodings == 1 && !equals_ignoring_case(trimmed(req.get_header_value("Transfer-Encoding")), "chunked"))
    return "Transfer-Encoding other than chunked";
  if (lengths == 1 && !plain_length(trimmed(req.get_header_value("Content-Length"))))
    return "Content-Length is not a number";
  return std::nullopt;
}

bool carries_body(const httplib::Request& req) {
  if (req.has_header("Transfer-Encoding")) return true;
  const auto lengths = req.get_header_value_count("Content-Length");
  if (lengths == 0) return false;
  return lengths > 1 || trimmed(req.get_header_value("Content-Length")).find_first_not_of('0') != std::string_view::npos;
}

}  // namespace fp::service
