// Runs the project's own denoising ops (core/ops/frame_op.hpp) over a whole video, frame
// after frame in order, as a pipeline stage would: on the CPU (cpu/frame_ops.hpp) or on a
// CUDA device (cuda/frame_ops.hpp, in builds with CUDA).
#pragma once

#include <memory>
#include <string>

#include "core/ops/temporal_nlmeans_params.hpp"
#include "tools/denoise_quality/gray_video.hpp"

namespace fp::quality {

// One denoising configuration, its strength h left to each run.
struct Method {
  std::string id;     // in the JSON: nlmeans, temporal_k4, ...
  std::string label;  // in the tables
  bool temporal = false;  // false: the spatial nlmeans op, with params.spatial
  ops::TemporalNlmeansParams params;

  ops::TemporalNlmeansParams with_h(double h) const {
    ops::TemporalNlmeansParams p = params;
    p.spatial.h = h;
    return p;
  }
};

class Denoiser {
 public:
  virtual ~Denoiser() = default;
  // The noisy video that the runs after it denoise (a GPU denoiser uploads it once).
  virtual void load(const GrayVideo& noisy) = 0;
  // Every frame of the loaded video through a fresh op (no history from an earlier run).
  virtual GrayVideo run(const Method& method, double h) = 0;
  // What it runs on, for the results: "cpu (16 threads)", "cuda:0 (NVIDIA H200)".
  virtual std::string description() const = 0;
};

// "cpu", "cuda" (device 0) or "cuda:N"; throws UsageError for anything else, and for a CUDA
// device in a build without CUDA.
std::unique_ptr<Denoiser> make_denoiser(const std::string& device);

std::unique_ptr<Denoiser> make_cpu_denoiser();
#ifdef FRAMEPIPE_WITH_CUDA
std::unique_ptr<Denoiser> make_cuda_denoiser(int ordinal);  // cuda_denoiser.cpp
#endif

}  // namespace fp::quality
