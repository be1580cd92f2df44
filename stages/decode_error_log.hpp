// Log lines about damaged input that do not flood the log: the first damage with its
// position, then at most one line per interval with the running count, and a last count at
// the end of the stream when it moved since the last line. (A damaged live stream may
// produce thousands of errors; one line each would bury everything else.)
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "media/decode_errors.hpp"

namespace fp {

class DecodeErrorLog {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kDefaultInterval{10};

  // `name` starts every line (the input's URI).
  explicit DecodeErrorLog(std::string name, Clock::duration interval = kDefaultInterval)
      : name_(std::move(name)), interval_(interval) {}

  // The line to log after a read, if any; `at_end` when the stream has ended.
  std::optional<std::string> update(const DecodeErrors& errors, Clock::time_point now, bool at_end);

 private:
  std::string name_;
  Clock::duration interval_;
  std::int64_t logged_total_ = 0;  // errors.total() when the last line was made
  Clock::time_point last_line_{};
};

}  // namespace fp
