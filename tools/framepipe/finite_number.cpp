#include "tools/framepipe/finite_number.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace fp::cli {

CLI::Validator finite_in(double min, double max, bool min_exclusive) {
  const std::string range = fmt::format("{}{}, {}]", min_exclusive ? "(" : "[", min, max);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
        const bool number = ec == std::errc() && end == text.data() + text.size() && !text.empty();
        const bool within = number && std::isfinite(value) && (min_exclusive ? value > min : value >= min) && value <= max;
        if (within) return "";
        return fmt::format("must be a number in {} (got {})", range, text.substr(0, 40));
      },
      "NUMBER in " + range);
}

}  // namespace fp::cli
