// Owning pitched 2D buffers in device memory, and host<->device copies on a stream. The
// pipeline's pool allocates these once at set-up; kernels only ever see ImageViews.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <utility>

#include "core/image_view.hpp"
#include "cuda/allocation.hpp"
#include "cuda/cuda_check.hpp"

namespace fp::cuda {

template <class T>
class DeviceImage {
 public:
  DeviceImage() = default;
  DeviceImage(int width, int height) : width_(width), height_(height) {
    if (width > 0 && height > 0) {
      void* p = nullptr;
      std::size_t pitch = 0;
      FP_CUDA_CHECK(cudaMallocPitch(&p, &pitch, static_cast<std::size_t>(width) * sizeof(T), height));
      data_ = static_cast<T*>(p);
      pitch_ = static_cast<std::ptrdiff_t>(pitch);
    }
  }
  ~DeviceImage() { cudaFree(data_); }
  DeviceImage(DeviceImage&& o) noexcept { swap(o); }
  DeviceImage& operator=(DeviceImage&& o) noexcept {
    DeviceImage(std::move(o)).swap(*this);
    return *this;
  }
  DeviceImage(const DeviceImage&) = delete;
  DeviceImage& operator=(const DeviceImage&) = delete;

  ImageView<T> view() { return {data_, width_, height_, pitch_}; }
  ImageView<const T> view() const { return {data_, width_, height_, pitch_}; }
  int width() const { return width_; }
  int height() const { return height_; }

 private:
  void swap(DeviceImage& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(width_, o.width_);
    std::swap(height_, o.height_);
    std::swap(pitch_, o.pitch_);
  }
  T* data_ = nullptr;
  int width_ = 0;
  int height_ = 0;
  std::ptrdiff_t pitch_ = 0;
};

// Where a CudaArray lives: device memory, or page-locked host memory (the target of
// asynchronous device-to-host copies that the host reads once its stream passed an event).
struct DeviceMemory {
  static void* allocate(std::size_t bytes) { return allocate_device(bytes); }
  static void release(void* p) { release_device(p); }
};
struct PinnedMemory {
  static void* allocate(std::size_t bytes) { return allocate_pinned(bytes); }
  static void release(void* p) { release_pinned(p); }
};

// A plain owning array (workspaces, results) in the memory that `Memory` allocates.
template <class T, class Memory>
class CudaArray {
 public:
  CudaArray() = default;
  explicit CudaArray(std::size_t count) : count_(count) {
    if (count > 0) data_ = static_cast<T*>(Memory::allocate(count * sizeof(T)));
  }
  ~CudaArray() { Memory::release(data_); }
  CudaArray(CudaArray&& o) noexcept : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  CudaArray& operator=(CudaArray&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  CudaArray(const CudaArray&) = delete;
  CudaArray& operator=(const CudaArray&) = delete;
  T* get() const { return data_; }
  std::size_t size() const { return count_; }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

template <class T>
using DeviceArray = CudaArray<T, DeviceMemory>;
template <class T>
using PinnedArray = CudaArray<T, PinnedMemory>;

template <class T>
void upload(ImageView<const T> host, ImageView<T> device, cudaStream_t stream) {
  FP_CUDA_CHECK(cudaMemcpy2DAsync(device.data, device.pitch, host.data, host.pitch,
                                  static_cast<std::size_t>(host.width) * sizeof(T), host.height,
                                  cudaMemcpyHostToDevice, stream));
}

// Between two device planes of the same size (any pitches).
template <class T>
void copy(ImageView<const T> from, ImageView<T> to, cudaStream_t stream) {
  FP_CUDA_CHECK(cudaMemcpy2DAsync(to.data, to.pitch, from.data, from.pitch,
                                  static_cast<std::size_t>(from.width) * sizeof(T), from.height,
                                  cudaMemcpyDeviceToDevice, stream));
}

template <class T>
void download(ImageView<const T> device, ImageView<T> host, cudaStream_t stream) {
  FP_CUDA_CHECK(cudaMemcpy2DAsync(host.data, host.pitch, device.data, device.pitch,
                                  static_cast<std::size_t>(device.width) * sizeof(T), device.height,
                                  cudaMemcpyDeviceToHost, stream));
}

}  // namespace fp::cuda
