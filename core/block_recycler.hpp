// Equal-size memory blocks kept for reuse, and an allocator over them: what lets
// shared_ptr control blocks and other small per-frame objects (a plane's reference count,
// a plane lent to FFmpeg) come and go every frame without touching the heap once warm.
// Thread-safe: a block may be given back on another thread than the one that took it (an
// encoder's worker releases what the graph's thread lent).
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <new>
#include <vector>

namespace fp {

class BlockRecycler {
 public:
  BlockRecycler() = default;
  ~BlockRecycler();
  BlockRecycler(const BlockRecycler&) = delete;
  BlockRecycler& operator=(const BlockRecycler&) = delete;

  // A block of `bytes` (at most max_align_t-aligned): a recycled one when one of that size
  // is free, else a new one. The first size asked is the one recycled; others (none in
  // practice: one recycler serves one kind of object) go to the heap and back.
  void* take(std::size_t bytes);
  void give(void* block, std::size_t bytes) noexcept;

 private:
  std::mutex mutex_;
  std::size_t size_ = 0;
  std::size_t made_ = 0;  // blocks of size_ taken from the heap so far
  std::vector<void*> free_;
};

// An allocator whose blocks come from one BlockRecycler, which it keeps alive: a control
// block made with it may be freed after whoever made it is gone (the allocator's copy in the
// control block holds the recycler until the block is back).
template <class T>
struct RecyclingAllocator {
  using value_type = T;

  explicit RecyclingAllocator(std::shared_ptr<BlockRecycler> blocks) : recycler(std::move(blocks)) {}
  template <class U>
  RecyclingAllocator(const RecyclingAllocator<U>& other) : recycler(other.recycler) {}  // NOLINT: rebinding

  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= alignof(std::max_align_t), "recycled blocks are max_align_t-aligned");
    return static_cast<T*>(recycler->take(n * sizeof(T)));
  }
  void deallocate(T* block, std::size_t n) noexcept { recycler->give(block, n * sizeof(T)); }

  template <class U>
  bool operator==(const RecyclingAllocator<U>& other) const {
    return recycler == other.recycler;
  }

  std::shared_ptr<BlockRecycler> recycler;
};

}  // namespace fp
