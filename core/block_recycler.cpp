#include "core/block_recycler.hpp"

namespace fp {

BlockRecycler::~BlockRecycler() {
  for (void* block : free_) ::operator delete(block);
}

void* BlockRecycler::take(std::size_t bytes) {
  std::lock_guard lock(mutex_);
  if (size_ == 0) size_ = bytes;
  if (bytes != size_) return ::operator new(bytes);
  if (!free_.empty()) {
    void* block = free_.back();
    free_.pop_back();
    return block;
  }
  // Room for every block made to come back without allocating (give() cannot fail): this
  // grows only while the number of blocks in use does, i.e. while warming up.
  free_.reserve(made_ + 1);
  void* block = ::operator new(bytes);
  ++made_;
  return block;
}

void BlockRecycler::give(void* block, std::size_t bytes) noexcept {
  if (block == nullptr) return;
  {
    std::lock_guard lock(mutex_);
    if (bytes == size_) {
      free_.push_back(block);  // capacity >= made_: never allocates
      return;
    }
  }
  ::operator delete(block);
}

}  // namespace fp
