#include "pipeline/engine/output_failures.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>

namespace fp {

std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown failure";
  }
}

OutputFailures::OutputFailures(std::size_t nodes) : is_output_(nodes, false), failed_(nodes, false) {}

void OutputFailures::failed(std::size_t node, const std::string& id, const std::exception_ptr& error) {
  const std::string message = fmt::format("{}: {}", id, message_of(error));
  bool log = false;
  {
    std::lock_guard lock(mutex_);
    failed_.at(node) = true;
    messages_.push_back(message);
    log = !finalizing_ && !all_failed_locked();
  }
  if (log) spdlog::error("{}; the other outputs go on", message);
}

void OutputFailures::left_out_silently(std::size_t node) {
  std::lock_guard lock(mutex_);
  failed_.at(node) = true;
}

bool OutputFailures::left_out(std::size_t node) const {
  std::lock_guard lock(mutex_);
  return failed_.at(node);
}

bool OutputFailures::all_failed() const {
  std::lock_guard lock(mutex_);
  return all_failed_locked();
}

bool OutputFailures::all_failed_locked() const {
  int outputs = 0;
  int failed = 0;
  for (std::size_t i = 0; i < is_output_.size(); ++i) {
    if (!is_output_[i]) continue;
    ++outputs;
    failed += failed_[i] ? 1 : 0;
  }
  return outputs > 0 && failed == outputs;
}

void OutputFailures::finalizing() {
  std::lock_guard lock(mutex_);
  finalizing_ = true;
}

std::vector<std::string> OutputFailures::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}

}  // namespace fp
