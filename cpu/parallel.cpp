#include "cpu/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/cpu_account.hpp"

namespace fp::cpu {
namespace {

// FRAMEPIPE_THREADS beyond this is taken for a mistake rather than a request for that many
// threads.
constexpr int kMaxThreads = 1024;

// More chunks than workers, so that a worker which finishes early takes over the rows another
// would otherwise still be doing; not so many that claiming a chunk costs more than its rows.
constexpr int kChunksPerWorker = 8;

// True on a thread that is running chunks of a job (a pool worker, or a caller taking its
// share). A nested parallel_rows there runs inline: waiting for the pool from inside the pool
// would deadlock.
thread_local bool t_inside_job = false;

// The worker index this thread passes to bodies: pool thread i is i + 1, every other thread
// (the callers) 0. A nested call runs inline with its thread's index, which is unique among
// the chunks of the outer job that run at the same time.
thread_local int t_worker = 0;

using Body = FunctionRef<void(int worker, int begin, int end)>;

int threads_from_environment() {
  const char* text = std::getenv("FRAMEPIPE_THREADS");
  if (text == nullptr) return 0;
  int value = 0;
  const char* end = text + std::strlen(text);
  const auto [ptr, ec] = std::from_chars(text, end, value);
  if (ec != std::errc{} || ptr != end || value < 1) return 0;  // unusable: fall back to the hardware
  return std::min(value, kMaxThreads);
}

class Pool {
 public:
  // The caller of parallel_rows works too, so the pool starts one thread fewer than it uses.
  explicit Pool(int workers) {
    threads_.reserve(static_cast<std::size_t>(workers - 1));
    try {
      for (int i = 0; i + 1 < workers; ++i) threads_.emplace_back([this, i] { worker_loop(i + 1); });
    } catch (...) {
      stop_and_join();  // a thread that failed to start must not leave the others running
      throw;
    }
  }

  ~Pool() { stop_and_join(); }

  Pool(const Pool&) = delete;
  Pool& operator=(const Pool&) = delete;

  // Runs the job on the pool; false when the pool is busy with another caller's job (the
  // caller then does its rows itself rather than wait for a pool that may stay busy).
  bool try_run(int rows, int chunks, Body body) {
    std::unique_lock job_lock(job_mutex_, std::try_to_lock);
    if (!job_lock.owns_lock()) return false;

    {
      std::lock_guard lock(mutex_);
      body_ = &body;
      rows_ = rows;
      chunks_ = chunks;
      next_chunk_.store(0, std::memory_order_relaxed);
      error_ = nullptr;
      busy_workers_ = static_cast<int>(threads_.size());
      // The workers' time on this job is the caller's (its stream's): core/cpu_account.hpp.
      account_ = thread_cpu_account();
      ++generation_;
    }
    wake_.notify_all();

    run_chunks();

    std::exception_ptr error;
    {
      std::unique_lock lock(mutex_);
      // Every worker must be out of the job before body_ (which refers to the caller's
      // frame) goes out of scope.
      done_.wait(lock, [this] { return busy_workers_ == 0; });
      body_ = nullptr;
      error = error_;
      error_ = nullptr;
    }
    if (error) std::rethrow_exception(error);
    return true;
  }

 private:
  void stop_and_join() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& thread : threads_) thread.join();
  }

  void worker_loop(int worker) {
    t_worker = worker;
    std::uint64_t seen = 0;
    for (;;) {
      CpuAccount* account = nullptr;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        account = account_;
      }
      const std::int64_t cpu_at_start = account != nullptr ? thread_cpu_nanoseconds() : 0;
      run_chunks();
      if (account != nullptr) account->add(thread_cpu_nanoseconds() - cpu_at_start);
      {
        std::lock_guard lock(mutex_);
        --busy_workers_;
      }
      done_.notify_one();
    }
  }

  void run_chunks() {
    t_inside_job = true;
    for (;;) {
      const int chunk = next_chunk_.fetch_add(1, std::memory_order_relaxed);
      if (chunk >= chunks_) break;
      const int begin = static_cast<int>(static_cast<long long>(rows_) * chunk / chunks_);
      const int end = static_cast<int>(static_cast<long long>(rows_) * (chunk + 1) / chunks_);
      try {
        (*body_)(t_worker, begin, end);
      } catch (...) {
        std::lock_guard lock(mutex_);
        if (!error_) error_ = std::current_exception();
        // The job has failed: the remaining chunks would only be thrown away.
        next_chunk_.store(chunks_, std::memory_order_relaxed);
      }
    }
    t_inside_job = false;
  }

  std::mutex job_mutex_;  // held by the one caller whose job the pool is running
  std::mutex mutex_;      // guards everything below except next_chunk_
  std::condition_variable wake_;
  std::condition_variable done_;
  std::vector<std::thread> threads_;
  bool stop_ = false;
  std::uint64_t generation_ = 0;
  int busy_workers_ = 0;
  const Body* body_ = nullptr;
  CpuAccount* account_ = nullptr;  // the job's caller's, charged with the workers' time on it
  int rows_ = 0;
  int chunks_ = 0;
  std::atomic<int> next_chunk_{0};
  std::exception_ptr error_;
};

Pool& pool() {
  static Pool instance(worker_count());
  return instance;
}

}  // namespace

int worker_count() {
  static const int count = [] {
    if (const int from_env = threads_from_environment(); from_env > 0) return from_env;
    return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }();
  return count;
}

void parallel_rows_on_workers(int rows, Body body) {
  if (rows <= 0) return;
  const int workers = worker_count();
  if (rows == 1 || workers == 1 || t_inside_job) {
    body(t_worker, 0, rows);
    return;
  }
  const int chunks = std::min(rows, workers * kChunksPerWorker);
  if (!pool().try_run(rows, chunks, body)) body(t_worker, 0, rows);
}

void parallel_rows(int rows, FunctionRef<void(int begin, int end)> body) {
  parallel_rows_on_workers(rows, [body](int, int begin, int end) { body(begin, end); });
}

}  // namespace fp::cpu
