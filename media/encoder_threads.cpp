#include "media/encoder_threads.hpp"

#include <algorithm>
#include <cmath>

#include "core/usable_cores.hpp"

namespace fp {

int x264_thread_share(double cores, int encoders) {
  return std::max(1, static_cast<int>(std::lround(EncoderThreadBudget::kThreadsPerCore * cores / std::max(encoders, 1))));
}

EncoderThreadBudget::EncoderThreadBudget(double cores) : cores_(std::max(1.0, cores)) {}

EncoderThreadBudget& EncoderThreadBudget::process() {
  static EncoderThreadBudget budget(usable_cores());
  return budget;
}

EncoderThreadBudget::Lease EncoderThreadBudget::lease(int requested) {
  std::lock_guard lock(mutex_);
  ++encoders_;
  return Lease(this, requested > 0 ? requested : x264_thread_share(cores_, encoders_));
}

int EncoderThreadBudget::encoders() const {
  std::lock_guard lock(mutex_);
  return encoders_;
}

void EncoderThreadBudget::give_back() {
  std::lock_guard lock(mutex_);
  if (encoders_ > 0) --encoders_;
}

EncoderThreadBudget::Lease::Lease(Lease&& other) noexcept : budget_(other.budget_), threads_(other.threads_) {
  other.budget_ = nullptr;
}

EncoderThreadBudget::Lease::~Lease() {
  if (budget_ != nullptr) budget_->give_back();
}

}  // namespace fp
