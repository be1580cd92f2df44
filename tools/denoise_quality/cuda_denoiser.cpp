// The CUDA denoiser (CUDA builds only): the noisy video is uploaded once per load and stays
// on the device for every run; each run enqueues all frames' ops on one stream, downloads
// the outputs on it, and waits once at the end.
#include <cuda_runtime.h>
#include <fmt/format.h>

#include <memory>
#include <span>
#include <vector>

#include "core/frame.hpp"
#include "core/frame_context.hpp"
#include "core/frame_pool.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_image.hpp"
#include "cuda/frame_ops.hpp"
#include "cuda/plane_memory.hpp"
#include "cuda/stream.hpp"
#include "tools/denoise_quality/denoiser.hpp"

namespace fp::quality {

namespace {

class CudaDenoiser final : public Denoiser {
 public:
  explicit CudaDenoiser(int ordinal) : ordinal_(ordinal) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0;
    if (ordinal >= count)
      throw UsageError(fmt::format("device cuda:{}: this machine has {} CUDA device{}", ordinal, count,
                                   count == 1 ? "" : "s"));
    // The ops and the stream are made on (and keep to) the current device.
    FP_CUDA_CHECK(cudaSetDevice(ordinal));
    stream_ = std::make_unique<cuda::Stream>();
  }

  void load(const GrayVideo& noisy) override {
    if (!pool_ || pool_->width() != noisy.width || pool_->height() != noisy.height) {
      inputs_.clear();
      outputs_.clear();
      pool_ = std::make_unique<FramePool>(noisy.width, noisy.height, cuda::device_plane_memory(ordinal_));
    }
    width_ = noisy.width;
    height_ = noisy.height;
    // Every frame's own input and output plane: the op may read a frame's planes after
    // run() returns (it enqueues), and temporal ops keep earlier frames.
    while (static_cast<int>(inputs_.size()) < noisy.frames) {
      inputs_.push_back(pool_->acquire_luma());
      outputs_.push_back(pool_->acquire_luma());
    }
    frames_ = noisy.frames;
    for (int n = 0; n < frames_; ++n)
      cuda::upload(noisy.frame(n), inputs_[static_cast<std::size_t>(n)].view(), stream_->get());
    stream_->synchronize();
  }

  GrayVideo run(const Method& method, double h) override {
    const auto params = method.with_h(h);
    const ops::OpShape shape{.width = width_, .height = height_, .slots = 1, .device = ordinal_};
    auto op = method.temporal ? cuda::make_temporal_nlmeans_op(params, shape) : cuda::make_nlmeans_op(params.spatial);
    GrayVideo result(width_, height_, frames_);
    std::vector<FrameContext> contexts(static_cast<std::size_t>(frames_));
    for (int n = 0; n < frames_; ++n) {
      Frame in;
      in.width = width_;
      in.height = height_;
      in.location = MemoryLocation::Device;
      in.device = ordinal_;
      in.sequence = n;
      in.planes[0] = inputs_[static_cast<std::size_t>(n)];
      Frame out = in;  // as stages/luma_plane_stage.hpp: the input's frame, a fresh luma plane
      out.planes[0] = outputs_[static_cast<std::size_t>(n)];
      FrameContext& context = contexts[static_cast<std::size_t>(n)];
      context.slot = 0;
      context.stream = stream_->get();
      op->run(std::span<const Frame>(&in, 1), out, context);
      cuda::download(out.luma().cview(), result.frame(n), stream_->get());
    }
    stream_->synchronize();
    for (auto& context : contexts) context.run_completions();
    return result;
  }

  std::string description() const override {
    cudaDeviceProp properties{};
    FP_CUDA_CHECK(cudaGetDeviceProperties(&properties, ordinal_));
    return fmt::format("cuda:{} ({})", ordinal_, properties.name);
  }

 private:
  int ordinal_;
  std::unique_ptr<cuda::Stream> stream_;
  std::unique_ptr<FramePool> pool_;
  std::vector<Plane> inputs_;
  std::vector<Plane> outputs_;
  int width_ = 0;
  int height_ = 0;
  int frames_ = 0;
};

}  // namespace

std::unique_ptr<Denoiser> make_cuda_denoiser(int ordinal) { return std::make_unique<CudaDenoiser>(ordinal); }

}  // namespace fp::quality
