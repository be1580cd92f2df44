// Recycles planes of one size so that the steady state allocates nothing per frame: a plane
// returns to its pool when the last Frame that references it is gone. Buffers live where
// the pool's PlaneMemory says: host memory by default; the CUDA backend supplies device
// memory and page-locked host memory (the target of asynchronous downloads).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/block_recycler.hpp"
#include "core/frame.hpp"

namespace fp {

struct PlaneMemory {
  MemoryLocation location = MemoryLocation::Host;
  int device = -1;  // CUDA ordinal of device memory
  // Null: ordinary host memory (new[] / delete[]). Otherwise both are set; `allocate`
  // throws on failure.
  std::function<std::uint8_t*(std::size_t bytes)> allocate;
  std::function<void(std::uint8_t*)> release;
  // Rows start at multiples of this many bytes: 64 suits cache lines and the widest SIMD
  // loads; device memory uses 512 (cudaMallocPitch's choice on current GPUs).
  std::ptrdiff_t row_alignment = 64;
};

class PlanePool : public std::enable_shared_from_this<PlanePool> {
 public:
  static std::shared_ptr<PlanePool> create(int width, int height, PlaneMemory memory = {});
  ~PlanePool();
  PlanePool(const PlanePool&) = delete;
  PlanePool& operator=(const PlanePool&) = delete;

  Plane acquire();
  int width() const { return width_; }
  int height() const { return height_; }
  std::size_t allocated() const;  // buffers made so far (for tests and stats)

 private:
  PlanePool(int width, int height, PlaneMemory memory);
  void release(std::uint8_t* buffer);

  int width_;
  int height_;
  PlaneMemory memory_;
  std::ptrdiff_t pitch_;
  // Each acquired plane's reference count (a shared_ptr control block) comes from here.
  std::shared_ptr<BlockRecycler> counts_ = std::make_shared<BlockRecycler>();
  mutable std::mutex mutex_;
  std::vector<std::uint8_t*> owned_;
  std::vector<std::uint8_t*> free_;
};

// Allocates I420 frames of one luma size from three plane pools.
class FramePool {
 public:
  FramePool(int width, int height, PlaneMemory memory = {});
  Frame acquire();                 // all three planes fresh (contents undefined)
  Plane acquire_luma();            // just a luma plane, for stages that keep the chroma
  Plane acquire_chroma();          // one chroma plane (to split an NV12 frame's chroma into)
  // An NV12 chroma plane: chroma_width pairs of bytes a row (the download of an NVDEC
  // frame's chroma as it is, when no stage reads it).
  Plane acquire_interleaved_chroma();
  int width() const { return width_; }
  int height() const { return height_; }
  MemoryLocation location() const { return location_; }

 private:
  int width_;
  int height_;
  MemoryLocation location_;
  int device_;
  std::shared_ptr<PlanePool> luma_;
  std::shared_ptr<PlanePool> chroma_;
  std::shared_ptr<PlanePool> interleaved_chroma_;  // 2 * chroma_width bytes wide
};

}  // namespace fp
