// Reading a real /metrics from a test: the port a framepipe process printed, a sample's value.
#pragma once

#include <optional>
#include <string>

#include "tests/e2e/background_run.hpp"

namespace fp::test {

// The port of "framepipe: metrics on http://HOST:PORT/metrics" in the process's output,
// waited for up to `seconds`; 0 when it did not come (or the process ended).
int printed_metrics_port(BackgroundRun& process, double seconds);

// The value of the sample written exactly as `series` ("name{a=\"b\"}") in an exposition.
std::optional<double> sample_value(const std::string& exposition, const std::string& series);

}  // namespace fp::test
