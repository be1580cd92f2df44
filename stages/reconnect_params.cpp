#include "stages/reconnect_params.hpp"

#include <spdlog/spdlog.h>

#include "stages/reconnect_log.hpp"

namespace fp {

std::vector<ParamSpec> reconnect_param_specs(const std::string& attempts_help) {
  return {
      {.name = "reconnect.attempts",
       .type = ParamType::Int,
       .help = attempts_help,
       .default_value = std::string("auto"),
       // A count that the policy's int holds with room to spare (unbounded, 2^31 wrapped to a
       // negative count and 2^32 to 0, off); `forever` is the way to ask for no limit.
       .range = {.min = 0, .max = kMaxReconnectAttempts},
       .keywords = {"auto", "forever"}},
      {.name = "reconnect.initial_ms",
       .type = ParamType::Int,
       .help = "wait before the first attempt; each further attempt waits twice as long, up to reconnect.max_ms",
       .default_value = std::int64_t{500},
       .range = {.min = 1, .max = 600000}},
      {.name = "reconnect.max_ms",
       .type = ParamType::Int,
       .help = "longest wait between two attempts",
       .default_value = std::int64_t{10000},
       .range = {.min = 1, .max = 3600000}},
  };
}

ReconnectPolicy reconnect_policy(const StageParams& params, bool comes_back) {
  ReconnectPolicy policy;
  policy.initial_ms = static_cast<int>(params.integer("reconnect.initial_ms"));
  policy.max_ms = static_cast<int>(params.integer("reconnect.max_ms"));
  if (params.is_keyword("reconnect.attempts")) {
    const auto& word = params.text("reconnect.attempts");
    policy.attempts = word == "forever" || comes_back ? ReconnectPolicy::kForever : 0;
    // auto comes back after a loss, but only `forever` says a first open that fails will succeed.
    policy.retry_first_open = word == "forever";
  } else {
    policy.attempts = static_cast<int>(params.integer("reconnect.attempts"));
  }
  return policy;
}

void check_reconnect_params(const StageParams& params, std::vector<ParamIssue>& issues) {
  if (params.integer("reconnect.max_ms") < params.integer("reconnect.initial_ms"))
    issues.push_back({"reconnect.max_ms", "must be >= reconnect.initial_ms (" +
                                              std::to_string(params.integer("reconnect.initial_ms")) + ")"});
}

ReconnectListener reconnect_logger(const std::string& name, const ReconnectPolicy& policy) {
  return [name, policy](const ReconnectEvent& event) {
    const auto line = reconnect_log_line(name, policy, event);
    spdlog::log(line.level, "{}", line.text);
  };
}

}  // namespace fp
