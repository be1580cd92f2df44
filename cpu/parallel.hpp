// Spreads rows of work over all cores with one process-wide pool of worker threads, so
// per-frame calls start no threads.
#pragma once

#include <functional>

namespace fp::cpu {

// Calls body(begin, end) on disjoint row ranges covering [0, rows), in parallel, and
// returns when all are done. Exceptions from body are rethrown on the caller's thread.
void parallel_rows(int rows, const std::function<void(int begin, int end)>& body);

// Threads the pool uses (hardware concurrency, or FRAMEPIPE_THREADS when set).
int worker_count();

}  // namespace fp::cpu
