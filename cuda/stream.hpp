// RAII for CUDA streams and events.
#pragma once

#include <cuda_runtime.h>

#include <utility>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {

class Stream {
 public:
  Stream() { FP_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(Stream&& o) noexcept : stream_(std::exchange(o.stream_, nullptr)) {}
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream& operator=(Stream&&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { FP_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

class Event {
 public:
  // cudaEventDefault: timed, and a host wait on it spins. See cudaEventCreateWithFlags for
  // cudaEventBlockingSync (the waiting thread sleeps) and cudaEventDisableTiming.
  explicit Event(unsigned flags = cudaEventDefault) { FP_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(Event&& o) noexcept : event_(std::exchange(o.event_, nullptr)) {}
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event& operator=(Event&&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { FP_CUDA_CHECK(cudaEventRecord(event_, stream)); }
  // Milliseconds from `start` to this event (both recorded and complete).
  float elapsed_since(const Event& start) const {
    float ms = 0;
    FP_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

}  // namespace fp::cuda
