#include "media/io_deadline.hpp"

#include <fmt/format.h>

namespace fp {

std::string IoDeadline::seconds_text(std::chrono::milliseconds limit) {
  return fmt::format("{:g} s", static_cast<double>(limit.count()) / 1000.0);
}

}  // namespace fp
