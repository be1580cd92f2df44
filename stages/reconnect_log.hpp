// Log lines about a live input's gaps: a warning when the stream is lost and when it is back
// (with the gap), so that the default log level (warnings) shows both ends of every gap; each
// failed attempt at info (-v), since a camera that stays away for hours would otherwise fill
// the log.
#pragma once

#include <spdlog/common.h>

#include <string>

#include "media/reconnect.hpp"

namespace fp {

struct ReconnectLogLine {
  spdlog::level::level_enum level = spdlog::level::warn;
  std::string text;
};

// `name` is the input with its password masked; `policy` says how many attempts remain.
ReconnectLogLine reconnect_log_line(const std::string& name, const ReconnectPolicy& policy,
                                    const ReconnectEvent& event);

}  // namespace fp
