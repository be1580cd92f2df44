#include "stages/decode_error_log.hpp"

#include <fmt/format.h>

namespace fp {

std::optional<std::string> DecodeErrorLog::update(const DecodeErrors& errors, Clock::time_point now, bool at_end) {
  const std::int64_t total = errors.total();
  if (total == logged_total_) return std::nullopt;
  std::string line;
  if (logged_total_ == 0) {
    const DecodeErrorPosition& first = errors.first.front();
    line = fmt::format("{}: damaged input at {}: {}; skipped (on_error: skip), further damage is counted", name_,
                       first.where(), first.reason);
    if (total > 1) line += fmt::format(" ({} so far)", errors.summary());
  } else if (at_end) {
    line = fmt::format("{}: {} in all", name_, errors.summary());
  } else if (now - last_line_ >= interval_) {
    line = fmt::format("{}: {} so far, the latest at {}", name_, errors.summary(), errors.last.where());
  } else {
    return std::nullopt;
  }
  logged_total_ = total;
  last_line_ = now;
  return line;
}

}  // namespace fp
