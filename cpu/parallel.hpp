// Spreads rows of work over all cores with one process-wide pool of worker threads, so
// per-frame calls start no threads and allocate nothing.
#pragma once

#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

namespace fp::cpu {

template <class Signature>
class FunctionRef;

// A non-owning reference to a callable, for the bodies handed to parallel_rows: unlike a
// std::function made from a lambda, it never allocates (a lambda that captures more than two
// pointers does not fit std::function's inline buffer, and the rows ran once per frame).
// The callable must outlive the reference, which holds for a temporary lambda passed straight
// to parallel_rows.
template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& callable) noexcept  // NOLINT: implicit, as std::function's
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(callable)))),
        call_([](void* object, Args... args) -> R {
          return std::invoke(*static_cast<std::remove_reference_t<F>*>(object), std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

// Calls body(begin, end) on disjoint row ranges covering [0, rows), in parallel, and
// returns when all are done. Exceptions from body are rethrown on the caller's thread.
void parallel_rows(int rows, FunctionRef<void(int begin, int end)> body);

// The same, with the index of the worker that runs each range: in [0, worker_count()), and
// never the same for two ranges of one call that run at the same time, so that per-worker
// scratch (sized by the caller before the call) is indexed by it without locks.
void parallel_rows_on_workers(int rows, FunctionRef<void(int worker, int begin, int end)> body);

// Threads the pool uses (hardware concurrency, or FRAMEPIPE_THREADS when set).
int worker_count();

}  // namespace fp::cpu
