#include "core/frame_pool.hpp"

#include <new>
#include <stdexcept>

namespace fp {

namespace {
// Ordinary host buffers start on a 64-byte boundary, like their rows: an encoder may then
// take a frame's planes by reference (FFmpeg's SIMD assumes that much alignment).
constexpr std::align_val_t kHostAlignment{64};

std::ptrdiff_t aligned_pitch(int width, std::ptrdiff_t alignment) {
  const std::ptrdiff_t w = width > 0 ? width : 1;
  return (w + alignment - 1) / alignment * alignment;
}
}  // namespace

std::shared_ptr<PlanePool> PlanePool::create(int width, int height, PlaneMemory memory) {
  return std::shared_ptr<PlanePool>(new PlanePool(width, height, std::move(memory)));
}

PlanePool::PlanePool(int width, int height, PlaneMemory memory)
    : width_(width), height_(height), memory_(std::move(memory)) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("PlanePool: size must be positive");
  if (memory_.row_alignment <= 0) throw std::invalid_argument("PlanePool: row alignment must be positive");
  if (static_cast<bool>(memory_.allocate) != static_cast<bool>(memory_.release))
    throw std::invalid_argument("PlanePool: allocate and release come together");
  pitch_ = aligned_pitch(width, memory_.row_alignment);
}

PlanePool::~PlanePool() {
  // Every plane holds the pool alive, so by now all buffers are back.
  for (auto* buffer : owned_) {
    if (memory_.release)
      memory_.release(buffer);
    else
      ::operator delete[](buffer, kHostAlignment);
  }
}

Plane PlanePool::acquire() {
  std::uint8_t* buffer = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (free_.empty()) {
      const auto bytes = static_cast<std::size_t>(pitch_) * height_;
      owned_.reserve(owned_.size() + 1);  // so that push_back cannot throw after allocating
      free_.reserve(owned_.size() + 1);   // so that release() never allocates
      buffer = memory_.allocate ? memory_.allocate(bytes)
                                : static_cast<std::uint8_t*>(::operator new[](bytes, kHostAlignment));
      owned_.push_back(buffer);
    } else {
      buffer = free_.back();
      free_.pop_back();
    }
  }
  // The deleter holds the pool alive, so a plane may outlive whoever made the pool.
  auto self = shared_from_this();
  Plane plane;
  plane.storage = std::shared_ptr<std::uint8_t>(buffer, [self](std::uint8_t* p) { self->release(p); },
                                                RecyclingAllocator<std::uint8_t>(counts_));
  plane.data = buffer;
  plane.width = width_;
  plane.height = height_;
  plane.pitch = pitch_;
  return plane;
}

void PlanePool::release(std::uint8_t* buffer) {
  std::lock_guard lock(mutex_);
  free_.push_back(buffer);  // capacity: see acquire
}

std::size_t PlanePool::allocated() const {
  std::lock_guard lock(mutex_);
  return owned_.size();
}

FramePool::FramePool(int width, int height, PlaneMemory memory)
    : width_(width),
      height_(height),
      location_(memory.location),
      device_(memory.device),
      luma_(PlanePool::create(width, height, memory)),
      chroma_(PlanePool::create(chroma_width(width), chroma_height(height), memory)),
      interleaved_chroma_(PlanePool::create(2 * chroma_width(width), chroma_height(height), memory)) {}

Frame FramePool::acquire() {
  Frame frame;
  frame.width = width_;
  frame.height = height_;
  frame.location = location_;
  frame.device = device_;
  frame.planes[0] = luma_->acquire();
  frame.planes[1] = chroma_->acquire();
  frame.planes[2] = chroma_->acquire();
  return frame;
}

Plane FramePool::acquire_luma() { return luma_->acquire(); }
Plane FramePool::acquire_chroma() { return chroma_->acquire(); }

Plane FramePool::acquire_interleaved_chroma() {
  Plane plane = interleaved_chroma_->acquire();
  plane.width = chroma_width(width_);  // pairs, as Frame counts an NV12 chroma plane
  return plane;
}

}  // namespace fp
