#include "core/cpu_account.hpp"

#include <ctime>

namespace fp {

namespace {

thread_local CpuAccount* t_account = nullptr;
thread_local ThreadCpuCharge* t_charge = nullptr;

}  // namespace

std::int64_t thread_cpu_nanoseconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

void set_thread_cpu_account(CpuAccount* account) { t_account = account; }

CpuAccount* thread_cpu_account() { return t_account; }

ThreadCpuCharge::ThreadCpuCharge(CpuAccount* account)
    : account_(account), previous_account_(t_account), previous_(t_charge) {
  if (account_ == nullptr) return;
  t_account = account_;
  t_charge = this;
  last_ = thread_cpu_nanoseconds();
}

ThreadCpuCharge::~ThreadCpuCharge() {
  if (account_ == nullptr) return;
  charge();
  t_account = previous_account_;
  t_charge = previous_;
}

void charge_thread_cpu() {
  if (t_charge != nullptr) t_charge->charge();
}

void ThreadCpuCharge::charge() {
  if (account_ == nullptr) return;
  const std::int64_t now = thread_cpu_nanoseconds();
  account_->add(now - last_);
  last_ = now;
}

}  // namespace fp
