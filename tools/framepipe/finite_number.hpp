// A CLI11 check for a number option: finite and within its range. CLI11's Range and
// PositiveNumber compare, and NaN fails no comparison, so `--restart-wait nan` passed both
// (and restarted a camera 15,346 times in 5 s), and `--drain-timeout 1e10` passed to
// overflow the clock (a SIGTERM then ended serve at once, its recordings empty).
#pragma once

#include <CLI/CLI.hpp>

namespace fp::cli {

// Accepts a decimal number in [min, max] ((min, max] with min_exclusive); anything else —
// NaN, an infinity, a number past either bound, text — is refused naming the range, and
// CLI11 names the option (exit 2).
CLI::Validator finite_in(double min, double max, bool min_exclusive = false);

}  // namespace fp::cli
