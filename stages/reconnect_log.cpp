#include "stages/reconnect_log.hpp"

#include <fmt/format.h>

namespace fp {

namespace {

std::string attempts_text(const ReconnectPolicy& policy) {
  if (policy.attempts == ReconnectPolicy::kForever) return "until it is back";
  return fmt::format("at most {} time{}", policy.attempts, policy.attempts == 1 ? "" : "s");
}

}  // namespace

ReconnectLogLine reconnect_log_line(const std::string& name, const ReconnectPolicy& policy,
                                    const ReconnectEvent& event) {
  switch (event.kind) {
    case ReconnectEvent::Kind::OpenFailed:
      return {spdlog::level::warn, fmt::format("{}: cannot open ({}); trying again in {} ms (reconnect.attempts: forever)",
                                               name, event.reason, event.delay.count())};
    case ReconnectEvent::Kind::Opened:
      return {spdlog::level::warn, fmt::format("{}: opened at attempt {}, {:.1f} s after the first", name, event.attempt,
                                               event.delay.count() / 1000.0)};
    case ReconnectEvent::Kind::Lost:
      return {spdlog::level::warn, fmt::format("{}: stream lost ({}); reconnecting in {} ms, {}", name, event.reason,
                                               event.delay.count(), attempts_text(policy))};
    case ReconnectEvent::Kind::AttemptFailed:
      return {spdlog::level::info, fmt::format("{}: reconnect attempt {} failed ({}); next in {} ms", name,
                                               event.attempt, event.reason, event.delay.count())};
    case ReconnectEvent::Kind::Back:
      return {spdlog::level::warn,
              fmt::format("{}: stream back after a gap of {:.2f} s ({} attempt{}, reconnecting took {:.2f} s){}", name,
                          event.gap.gap_ms / 1000.0, event.attempt, event.attempt == 1 ? "" : "s",
                          event.gap.reconnect_ms / 1000.0, event.decoder.empty() ? "" : ", decoder " + event.decoder)};
  }
  return {spdlog::level::warn, name + ": reconnect event"};
}

}  // namespace fp
