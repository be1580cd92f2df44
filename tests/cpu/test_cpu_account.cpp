// The CPU pool charges its workers' time on a job to the account of the thread that handed
// it the job (core/cpu_account.hpp): a stream's stage rows spread over every core count for
// the stream. Measured against the process's own CPU time over the same job.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "core/cpu_account.hpp"
#include "core/process_usage.hpp"
#include "cpu/parallel.hpp"

namespace fp {
namespace {

// Rows of arithmetic that take a while each (the volatile keeps the loop).
void busy_rows(int begin, int end) {
  for (int row = begin; row < end; ++row) {
    volatile double x = row;
    for (int i = 0; i < 200000; ++i) x = std::sqrt(x + i);
  }
}

TEST(CpuAccount, ThePoolChargesItsWorkToTheCallersAccount) {
  if (cpu::worker_count() < 2) GTEST_SKIP() << "one worker: the pool runs nothing of its own";
  CpuAccount account;
  const double process_before = process_cpu_seconds();
  {
    const ThreadCpuCharge charge(&account);
    for (int i = 0; i < 10; ++i) cpu::parallel_rows(64, [](int begin, int end) { busy_rows(begin, end); });
  }
  const double process = process_cpu_seconds() - process_before;
  ASSERT_GT(process, 0.2) << "too little work to measure";
  // The caller's own time alone is about 1/workers of it; with the workers' charged, nearly
  // all (the rest: other threads of this test process, which are idle).
  EXPECT_GT(account.seconds(), 0.9 * process) << "charged " << account.seconds() << " s of " << process << " s";
  EXPECT_LE(account.seconds(), 1.02 * process + 0.01);
}

TEST(CpuAccount, WorkOutsideAChargeIsNobodys) {
  CpuAccount account;
  { const ThreadCpuCharge charge(&account); }
  const auto before = account.nanoseconds();
  cpu::parallel_rows(64, [](int begin, int end) { busy_rows(begin, end); });
  EXPECT_EQ(account.nanoseconds(), before);
  EXPECT_EQ(thread_cpu_account(), nullptr);
}

}  // namespace
}  // namespace fp
