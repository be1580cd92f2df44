// Recycles host planes of one size so that the steady state allocates nothing per frame:
// a plane returns to its pool when the last Frame that references it is gone.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "core/frame.hpp"

namespace fp {

class PlanePool : public std::enable_shared_from_this<PlanePool> {
 public:
  // Rows are padded to a multiple of 64 bytes (cache lines, and the widest SIMD loads).
  static std::shared_ptr<PlanePool> create(int width, int height);

  Plane acquire();
  int width() const { return width_; }
  int height() const { return height_; }
  std::size_t allocated() const;  // buffers made so far (for tests and stats)

 private:
  PlanePool(int width, int height);
  void release(std::uint8_t* buffer);

  int width_;
  int height_;
  std::ptrdiff_t pitch_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<std::uint8_t[]>> owned_;
  std::vector<std::uint8_t*> free_;
};

// Allocates I420 frames of one luma size from three plane pools.
class FramePool {
 public:
  FramePool(int width, int height);
  Frame acquire();                 // all three planes fresh (contents undefined)
  Plane acquire_luma();            // just a luma plane, for stages that keep the chroma
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  int width_;
  int height_;
  std::shared_ptr<PlanePool> luma_;
  std::shared_ptr<PlanePool> chroma_;
};

}  // namespace fp
