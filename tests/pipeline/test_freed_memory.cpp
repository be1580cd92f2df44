// give_freed_memory_back, called by every stream's thread as it ends: safe from many
// threads at once, first thing in a process, as serve's and run --jobs' streams end.
#include "core/freed_memory.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace fp {
namespace {

// Under a sanitizer the C library's own heap is never used (the sanitizer's allocator
// replaces malloc). malloc_trim was then the first call into it, and glibc's lazy set-up
// ran at once in every thread that called it: each took the main arena as its own, and
// the second to exit aborted ("malloc assertion failure in __malloc_arena_thread_freeres").
// Each run is a fresh process (a death test), since only the first calls set the heap up.
TEST(FreedMemory, GivenBackFromManyEndingThreadsAtOnceInAFreshProcess) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int process = 0; process < 20; ++process) {
    EXPECT_EXIT(
        {
          // As many threads as cores, spinning until all are there, so that their calls
          // overlap (a latch's waiters wake one after another, too far apart).
          const int threads_n = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
          std::atomic<int> ready = 0;
          std::vector<std::thread> threads;
          for (int i = 0; i < threads_n; ++i)
            threads.emplace_back([&] {
              ready.fetch_add(1);
              while (ready.load() < threads_n) {
              }
              give_freed_memory_back();
            });
          for (auto& thread : threads) thread.join();
          std::exit(0);
        },
        ::testing::ExitedWithCode(0), "")
        << "process " << process;
  }
}

}  // namespace
}  // namespace fp
