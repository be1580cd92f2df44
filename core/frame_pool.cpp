#include "core/frame_pool.hpp"

#include <stdexcept>

namespace fp {

namespace {
constexpr std::ptrdiff_t kRowAlignment = 64;
std::ptrdiff_t aligned_pitch(int width) {
  const std::ptrdiff_t w = width > 0 ? width : 1;
  return (w + kRowAlignment - 1) / kRowAlignment * kRowAlignment;
}
}  // namespace

std::shared_ptr<PlanePool> PlanePool::create(int width, int height) {
  return std::shared_ptr<PlanePool>(new PlanePool(width, height));
}

PlanePool::PlanePool(int width, int height) : width_(width), height_(height), pitch_(aligned_pitch(width)) {
  if (width <= 0 || height <= 0) throw std::invalid_argument("PlanePool: size must be positive");
}

Plane PlanePool::acquire() {
  std::uint8_t* buffer = nullptr;
  {
    std::lock_guard lock(mutex_);
    if (free_.empty()) {
      owned_.push_back(std::make_unique<std::uint8_t[]>(static_cast<std::size_t>(pitch_) * height_));
      buffer = owned_.back().get();
    } else {
      buffer = free_.back();
      free_.pop_back();
    }
  }
  // The deleter holds the pool alive, so a plane may outlive whoever made the pool.
  auto self = shared_from_this();
  Plane plane;
  plane.storage = std::shared_ptr<std::uint8_t>(buffer, [self](std::uint8_t* p) { self->release(p); });
  plane.data = buffer;
  plane.width = width_;
  plane.height = height_;
  plane.pitch = pitch_;
  return plane;
}

void PlanePool::release(std::uint8_t* buffer) {
  std::lock_guard lock(mutex_);
  free_.push_back(buffer);
}

std::size_t PlanePool::allocated() const {
  std::lock_guard lock(mutex_);
  return owned_.size();
}

FramePool::FramePool(int width, int height)
    : width_(width),
      height_(height),
      luma_(PlanePool::create(width, height)),
      chroma_(PlanePool::create(chroma_width(width), chroma_height(height))) {}

Frame FramePool::acquire() {
  Frame frame;
  frame.width = width_;
  frame.height = height_;
  frame.planes[0] = luma_->acquire();
  frame.planes[1] = chroma_->acquire();
  frame.planes[2] = chroma_->acquire();
  return frame;
}

Plane FramePool::acquire_luma() { return luma_->acquire(); }

}  // namespace fp
