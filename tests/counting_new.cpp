#include "tests/counting_new.hpp"

#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <new>

namespace {

std::atomic<bool> counting{false};
std::atomic<long> counted{0};
std::atomic<int> stacks_left{0};
thread_local bool in_hook = false;

void note_allocation() {
  if (!counting.load(std::memory_order_relaxed) || in_hook) return;
  counted.fetch_add(1, std::memory_order_relaxed);
  if (stacks_left.fetch_sub(1, std::memory_order_relaxed) > 0) {
    in_hook = true;
    void* frames[24];
    const int depth = backtrace(frames, 24);
    static const char kHeader[] = "---- an allocation while counting:\n";
    [[maybe_unused]] const auto written = write(2, kHeader, sizeof kHeader - 1);
    backtrace_symbols_fd(frames, depth, 2);
    in_hook = false;
  }
}

void* allocate(std::size_t size) {
  note_allocation();
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}

void* allocate_aligned(std::size_t size, std::align_val_t align) {
  note_allocation();
  const auto alignment = static_cast<std::size_t>(align);
  const std::size_t rounded = (size + alignment - 1) / alignment * alignment;
  if (void* p = std::aligned_alloc(alignment, rounded == 0 ? alignment : rounded)) return p;
  throw std::bad_alloc();
}

}  // namespace

namespace fp::test {

void start_counting_allocations() {
  counted = 0;
  counting = true;
}
void stop_counting_allocations() { counting = false; }
long allocations() { return counted.load(); }
void print_allocation_stacks(int stacks) { stacks_left = stacks; }

}  // namespace fp::test

// These pair malloc with free by design; GCC, seeing a free inlined where a new-expression's
// pointer is deleted, takes the pair for a mismatch.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void* operator new(std::size_t size, std::align_val_t align) { return allocate_aligned(size, align); }
void* operator new[](std::size_t size, std::align_val_t align) { return allocate_aligned(size, align); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
