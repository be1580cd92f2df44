// The strict framing layer in front of httplib's parser: a request's line and headers are
// read whole and checked here before httplib sees a byte of them, so that a request this
// server could not frame exactly is refused (400, or 431 when too large) and its connection
// closed, instead of being half-read by a parser that skips what it does not understand
// (httplib 0.11 drops a header line ended by a bare LF, keeps "Content-Length : 5" under
// another name, and answers an over-long line 400 but reads on: each let a body run as a
// request). What passes is RFC 9112 framing, strictly:
//   - every line ends in CRLF: a bare LF or a bare CR anywhere in the head is refused;
//   - the request line is METHOD SP TARGET SP HTTP/1.0|HTTP/1.1, a token, visible ASCII;
//   - a header line is NAME ":" VALUE, the name a token with nothing between it and the
//     colon, the value visible ASCII, spaces, tabs or bytes >= 0x80 (no NUL, no control
//     character), and no line folded onto the one before it (obs-fold);
//   - at most `most_bytes` in all, `most_lines` header lines, `kMostLineBytes` a line.
// Blank lines before the request line are skipped (RFC 9112 2.2), a few hundred bytes at most.
// No regular expression and no recursion: a loop over the bytes, once each.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fp::service {

// httplib 0.11's own bound on one line (request line or header, CRLF included): a line this
// layer passes is never one httplib refuses.
inline constexpr std::size_t kMostLineBytes = 8192;
// CR and LF bytes skipped before a request line.
inline constexpr std::size_t kMostBlankBytes = 256;

struct HeadLimits {
  std::size_t most_bytes = 16 * 1024;  // request line and headers, line ends included
  std::size_t most_lines = 100;        // header lines, the request line aside
};

// Why a head is refused: the status (400 or 431) and what to say.
struct HeadRefusal {
  int status = 400;
  std::string message;
};

// A head that passed, as the routes and the worker pools need it.
struct RequestHead {
  std::string method;
  std::string target;  // as sent: path and query
  std::string version;
  std::vector<std::pair<std::string, std::string>> fields;  // name as sent, value trimmed
  // What httplib parses: the same lines, without `Range` and `If-Range` (no route serves
  // byte ranges: an answer is never multiplied by what a client asks), ending in CRLF CRLF.
  std::string for_parser;

  // The path part of the target (before '?').
  std::string_view path() const;
  // The values of field `name` (any case), in order.
  std::vector<std::string_view> values(std::string_view name) const;
};

// Finds the end of a head in the bytes of a connection as they arrive, looking at each byte
// once. Bytes are fed in the order received; the scanner says where the head ends, or why it
// is refused, as soon as it can tell.
class RequestHeadScanner {
 public:
  explicit RequestHeadScanner(HeadLimits limits) : limits_(limits) {}

  enum class State { more, complete, refused };
  // Looks at `bytes`[from..]: all bytes of the connection so far, of which the first `from`
  // were looked at before. complete: the head is bytes[head_begin(), head_end()).
  State scan(std::string_view bytes);
  std::size_t head_begin() const { return begin_; }
  std::size_t head_end() const { return end_; }
  // Something other than blank lines has arrived: the request has begun.
  bool begun() const { return begun_; }
  const HeadRefusal& refusal() const { return refusal_; }

 private:
  State refuse(int status, std::string message);
  HeadLimits limits_;
  std::size_t looked_ = 0;      // bytes looked at
  std::size_t begin_ = 0;       // first byte of the request line
  std::size_t end_ = 0;         // one past the blank line that ends the head
  std::size_t line_start_ = 0;  // first byte of the line being read
  std::size_t lines_ = 0;       // lines ended so far, the request line included
  bool begun_ = false;
  State state_ = State::more;
  HeadRefusal refusal_;
};

// Checks each line of a complete head (from the request line to the blank line that ends it,
// as the scanner found it) and returns it parsed, or why it is refused (400).
std::optional<RequestHead> parse_request_head(std::string_view head, HeadRefusal& refusal);

}  // namespace fp::service
