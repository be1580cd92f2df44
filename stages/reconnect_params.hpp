// The `reconnect.*` parameters, shared by a decode stage (a live input that stops) and an
// encode stage (a network output whose receiver goes away): one table, one reading.
#pragma once

#include <string>
#include <vector>

#include "media/reconnect.hpp"
#include "stages/param.hpp"
#include "stages/stage.hpp"

namespace fp {

// The largest count reconnect.attempts takes (with the shortest backoff, weeks of trying).
inline constexpr int kMaxReconnectAttempts = 1000000;

// reconnect.attempts (auto|forever|N), reconnect.initial_ms, reconnect.max_ms;
// `attempts_help` says what is reconnected and what auto means for it.
std::vector<ParamSpec> reconnect_param_specs(const std::string& attempts_help);

// `auto` is forever when `comes_back` (a stream whose loss is usually passing), else off.
ReconnectPolicy reconnect_policy(const StageParams& params, bool comes_back);

// reconnect.max_ms below reconnect.initial_ms.
void check_reconnect_params(const StageParams& params, std::vector<ParamIssue>& issues);

// Logs a stream's gaps (stages/reconnect_log) under `name`, at the levels that file gives.
ReconnectListener reconnect_logger(const std::string& name, const ReconnectPolicy& policy);

}  // namespace fp
