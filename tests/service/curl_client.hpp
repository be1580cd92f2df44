// Requests made with the real curl program, as an operator's script makes them: the status,
// the response headers and the body.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fp::test {

struct HttpReply {
  int status = 0;        // 0: no answer (connection refused, timed out)
  std::string headers;   // the raw header block(s), lower-cased names kept as sent
  std::string body;
  std::string curl_error;
  nlohmann::json json() const;  // the body parsed; null when it is not JSON
  bool has_header(const std::string& name) const;  // case-insensitive
  // The value of the first header of that name (case-insensitive), trimmed; none when absent.
  std::optional<std::string> header(const std::string& name) const;
};

// curl -sS [args...] URL, bounded by --max-time time_bound(`seconds`) (a sanitizer build
// answers several times slower: tests/time_bound.hpp).
HttpReply curl(const std::string& method, const std::string& url, const std::vector<std::string>& args = {},
               double seconds = 10);
// The same with a JSON (or any) body.
HttpReply curl_with_body(const std::string& method, const std::string& url, const std::string& body,
                         const std::vector<std::string>& args = {}, double seconds = 10);

}  // namespace fp::test
