// CPU time charged to whoever threads work for: one stream of `framepipe serve`. A stream's
// own threads (its graph's, its sources' and sinks') charge their CPU time to its account as
// they go, and the CPU pool charges its workers' time on a job to the account of the thread
// that handed it the job (cpu/parallel.cpp), so that a stage's rows spread over every core
// count for the stream that asked for them. x264's and FFmpeg's own threads are not ours to
// measure: what the process used beyond every account is theirs (the stream manager says how
// it splits that).
#pragma once

#include <atomic>
#include <cstdint>

namespace fp {

class CpuAccount {
 public:
  void add(std::int64_t nanoseconds) { nanoseconds_.fetch_add(nanoseconds, std::memory_order_relaxed); }
  std::int64_t nanoseconds() const { return nanoseconds_.load(std::memory_order_relaxed); }
  double seconds() const { return static_cast<double>(nanoseconds()) / 1e9; }

 private:
  std::atomic<std::int64_t> nanoseconds_{0};
};

// The calling thread's CPU time so far (CLOCK_THREAD_CPUTIME_ID), in nanoseconds.
std::int64_t thread_cpu_nanoseconds();

// The account the calling thread's work is charged to; null: none (the default).
void set_thread_cpu_account(CpuAccount* account);
CpuAccount* thread_cpu_account();

// Charges the calling thread's CPU time to `account` (null: nothing) for as long as it
// lives: charge_thread_cpu() adds what the thread used since the last charge, and its end the
// rest. Made and used on one thread, which it also makes the account's for the pool's jobs;
// on going it gives the thread back the charge it had before.
class ThreadCpuCharge {
 public:
  explicit ThreadCpuCharge(CpuAccount* account);
  ~ThreadCpuCharge();
  ThreadCpuCharge(const ThreadCpuCharge&) = delete;
  ThreadCpuCharge& operator=(const ThreadCpuCharge&) = delete;
  void charge();

 private:
  CpuAccount* account_;
  CpuAccount* previous_account_;
  ThreadCpuCharge* previous_;
  std::int64_t last_ = 0;
};

// The calling thread's ThreadCpuCharge, if any, charges now: called by a stream's threads
// once a frame (a clock read), so that its account follows it as it runs.
void charge_thread_cpu();

}  // namespace fp
