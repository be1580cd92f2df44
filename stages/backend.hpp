// How a stage chooses its backend: the one place that knows whether this build has CUDA.
// A stage makes its per-frame op (core/ops/frame_op.hpp) once, in prepare():
//
//   op_ = on_cuda() ? FP_CUDA_ONLY(cuda::make_nlmeans_op(params_)) : cpu::make_nlmeans_op(params_);
//
// In a build without CUDA, FP_CUDA_ONLY(call) names `call` only inside decltype (so nothing
// links against the CUDA backend, which is not built) and throws if it is ever reached: a
// CUDA device cannot be chosen there (pipeline/engine/device refuses it first).
#pragma once

#include <stdexcept>

#include "core/ops/frame_op.hpp"
#include "media/video_info.hpp"
#include "stages/stage.hpp"

namespace fp {

template <class T>
[[noreturn]] T no_cuda_backend() {
  throw std::logic_error("a CUDA device was chosen in a framepipe built without CUDA");
}

#ifdef FRAMEPIPE_WITH_CUDA
#define FP_CUDA_ONLY(call) (call)
inline constexpr bool kCudaBackendBuilt = true;
#else
#define FP_CUDA_ONLY(call) (::fp::no_cuda_backend<decltype(call)>())
inline constexpr bool kCudaBackendBuilt = false;
#endif

// The frames a stage's op is made for: the stage's input size, its slots, its device.
inline ops::OpShape op_shape(const StageContext& context, const VideoInfo& input) {
  return {.width = input.width,
          .height = input.height,
          .slots = context.slots,
          .device = context.device.kind == DeviceKind::Cuda ? context.device.ordinal : -1};
}

}  // namespace fp
