#include "service/request_head.hpp"

#include <fmt/format.h>

#include "service/request_framing.hpp"

namespace fp::service {

namespace {

bool is_tchar(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_visible(char c) { return c >= 0x21 && c <= 0x7e; }

// A header value's byte: visible ASCII, a space or tab, or obs-text (>= 0x80).
bool is_value_byte(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte == ' ' || byte == '\t' || is_visible(c) || byte >= 0x80;
}

std::optional<RequestHead> refused(HeadRefusal& refusal, std::string message) {
  refusal = {400, "request framing: " + std::move(message)};
  return std::nullopt;
}

// METHOD SP TARGET SP VERSION, nothing else.
bool parse_request_line(std::string_view line, RequestHead& head) {
  std::size_t at = 0;
  while (at < line.size() && is_tchar(line[at])) ++at;
  if (at == 0 || at > 32 || at >= line.size() || line[at] != ' ') return false;
  head.method = line.substr(0, at);
  const std::size_t target_start = ++at;
  while (at < line.size() && is_visible(line[at])) ++at;
  if (at == target_start || at >= line.size() || line[at] != ' ') return false;
  head.target = line.substr(target_start, at - target_start);
  head.version = line.substr(at + 1);
  return head.version == "HTTP/1.1" || head.version == "HTTP/1.0";
}

}  // namespace

std::string_view RequestHead::path() const {
  const std::string_view whole = target;
  return whole.substr(0, whole.find('?'));
}

std::vector<std::string_view> RequestHead::values(std::string_view name) const {
  std::vector<std::string_view> found;
  for (const auto& [field, value] : fields)
    if (equals_ignoring_case(field, name)) found.emplace_back(value);
  return found;
}

RequestHeadScanner::State RequestHeadScanner::refuse(int status, std::string message) {
  refusal_ = {status, std::move(message)};
  return state_ = State::refused;
}

RequestHeadScanner::State RequestHeadScanner::scan(std::string_view bytes) {
  for (; state_ == State::more && looked_ < bytes.size(); ++looked_) {
    const std::size_t i = looked_;
    const char c = bytes[i];
    if (!begun_) {
      if (c == '\r' || c == '\n') {
        if (i + 1 > kMostBlankBytes)
          return refuse(400, fmt::format("request framing: more than {} bytes of blank lines before the request",
                                         kMostBlankBytes));
        continue;
      }
      begun_ = true;
      begin_ = line_start_ = i;
    }
    if (i > line_start_ && bytes[i - 1] == '\r' && c != '\n')
      return refuse(400, "request framing: a CR not followed by LF in the request head");
    const std::size_t line_bytes = i + 1 - line_start_;
    if (line_bytes > kMostLineBytes)
      return refuse(431, fmt::format("request headers too large: a line of more than {} bytes", kMostLineBytes));
    if (i + 1 - begin_ > limits_.most_bytes)
      return refuse(431, fmt::format("request headers too large: more than {} bytes", limits_.most_bytes));
    if (c != '\n') continue;
    if (i == line_start_ || bytes[i - 1] != '\r')
      return refuse(400, "request framing: a line ended by a bare LF (lines end in CRLF)");
    line_start_ = i + 1;
    if (line_bytes == 2) {  // the blank line: the head ends here
      end_ = i + 1;
      return state_ = State::complete;
    }
    if (++lines_ > limits_.most_lines + 1)
      return refuse(431, fmt::format("request headers too large: more than {} header lines", limits_.most_lines));
  }
  return state_;
}

std::optional<RequestHead> parse_request_head(std::string_view head, HeadRefusal& refusal) {
  RequestHead parsed;
  bool first = true;
  while (!head.empty()) {
    const std::size_t end = head.find("\r\n");
    if (end == std::string_view::npos) return refused(refusal, "the head does not end in CRLF CRLF");
    const std::string_view line = head.substr(0, end);
    head.remove_prefix(end + 2);
    if (first) {
      if (!parse_request_line(line, parsed))
        return refused(refusal, "the request line is not METHOD TARGET HTTP/1.1 (one space apart)");
      parsed.for_parser.append(line).append("\r\n");
      first = false;
      continue;
    }
    if (line.empty()) {
      if (!head.empty()) return refused(refusal, "bytes after the blank line that ends the head");
      break;
    }
    if (line.front() == ' ' || line.front() == '\t')
      return refused(refusal, "a header line folded onto the one before it (obs-fold)");
    std::size_t colon = 0;
    while (colon < line.size() && is_tchar(line[colon])) ++colon;
    if (colon == line.size()) return refused(refusal, "a header line without a colon");
    if (line[colon] == ' ' || line[colon] == '\t')
      return refused(refusal, "whitespace between a header's name and its colon");
    if (line[colon] != ':' || colon == 0) return refused(refusal, "a header name that is not a token");
    const std::string_view value = line.substr(colon + 1);
    for (const char c : value)
      if (!is_value_byte(c)) return refused(refusal, "a control character in a header's value");
    const std::string_view name = line.substr(0, colon);
    parsed.fields.emplace_back(std::string(name), std::string(trimmed(value)));
    // No route serves byte ranges: the header is not passed on, so no answer is cut into
    // (or multiplied by) the ranges a client lists.
    if (equals_ignoring_case(name, "Range") || equals_ignoring_case(name, "If-Range")) continue;
    parsed.for_parser.append(line).append("\r\n");
  }
  if (first) return refused(refusal, "no request line");
  parsed.for_parser.append("\r\n");
  return parsed;
}

}  // namespace fp::service
