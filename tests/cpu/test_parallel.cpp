#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu/parallel.hpp"

namespace fp::cpu {
namespace {

// Runs parallel_rows and checks that the ranges are disjoint, non-empty and cover [0, rows).
void expect_exact_cover(int rows) {
  std::vector<std::atomic<int>> hits(static_cast<std::size_t>(std::max(rows, 0)));
  std::atomic<int> bad_ranges{0};
  parallel_rows(rows, [&](int begin, int end) {
    if (begin < 0 || end > rows || begin >= end) ++bad_ranges;
    for (int i = std::max(begin, 0); i < std::min(end, rows); ++i) ++hits[static_cast<std::size_t>(i)];
  });
  EXPECT_EQ(bad_ranges.load(), 0) << "rows " << rows;
  int wrong = 0;
  for (auto& h : hits)
    if (h.load() != 1) ++wrong;
  EXPECT_EQ(wrong, 0) << "rows " << rows << ": rows not visited exactly once";
}

TEST(Parallel, WorkerCountIsPositive) { EXPECT_GE(worker_count(), 1); }

// FRAMEPIPE_THREADS when set (the Parallel.WholeSuiteWith*Workers runs set it), else one
// worker per core.
TEST(Parallel, WorkerCountFollowsEnvironment) {
  const char* text = std::getenv("FRAMEPIPE_THREADS");
  const int expected = text != nullptr ? std::atoi(text) : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  EXPECT_EQ(worker_count(), expected);
}

TEST(Parallel, CoversEveryRowOnce) {
  for (int rows : {0, 1, 2, 3, 7, 16, 17, 100, 1080, 100003}) expect_exact_cover(rows);
}

TEST(Parallel, NegativeRowsCallNothing) {
  int calls = 0;
  parallel_rows(-5, [&](int, int) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(Parallel, UsesSeveralThreads) {
  if (worker_count() < 2) GTEST_SKIP() << "one worker";
  std::mutex mutex;
  std::set<std::thread::id> ids;
  // Slow chunks, so that the other workers are sure to wake up and take some.
  parallel_rows(64, [&](int, int) {
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
    std::lock_guard lock(mutex);
    ids.insert(std::this_thread::get_id());
  });
  EXPECT_GE(ids.size(), 2U);
}

TEST(Parallel, RethrowsOnTheCaller) {
  EXPECT_THROW(parallel_rows(1000,
                             [](int begin, int end) {
                               if (begin <= 500 && 500 < end) throw std::runtime_error("row 500");
                             }),
               std::runtime_error);
  // Also when the body throws everywhere, and the pool is still fine afterwards.
  try {
    parallel_rows(1000, [](int, int) { throw std::logic_error("everywhere"); });
    ADD_FAILURE() << "no exception";
  } catch (const std::logic_error& e) {
    EXPECT_EQ(std::string(e.what()), "everywhere");
  }
  expect_exact_cover(1000);
}

TEST(Parallel, NestedCallsRunAndCover) {
  std::atomic<long> total{0};
  parallel_rows(8, [&](int begin, int end) {
    for (int i = begin; i < end; ++i)
      parallel_rows(100, [&](int b, int e) { total += e - b; });
  });
  EXPECT_EQ(total.load(), 800);
}

TEST(Parallel, ConcurrentCallersAllFinishCorrectly) {
  std::atomic<int> failures{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      for (int iteration = 0; iteration < 200; ++iteration) {
        const int rows = 50 + 37 * t + iteration;
        std::vector<std::atomic<int>> hits(static_cast<std::size_t>(rows));
        parallel_rows(rows, [&](int begin, int end) {
          for (int i = begin; i < end; ++i) ++hits[static_cast<std::size_t>(i)];
        });
        for (auto& h : hits)
          if (h.load() != 1) ++failures;
      }
    });
  for (auto& c : callers) c.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace fp::cpu
