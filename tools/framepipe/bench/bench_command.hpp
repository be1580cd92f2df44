// `framepipe bench` (only in builds with the CUDA backend).
#pragma once

#include <string>
#include <vector>

namespace fp::cli {

struct BenchArguments {
  std::vector<std::string> stages;  // empty: every kernel
  std::vector<std::string> sizes;   // WxH; empty: 1280x720, 1920x1080, 3840x2160
  int runs = 100;
  int warmup = 10;
  std::string json;
  // What bounds each kernel: "ncu" (Nsight Compute), "estimate" (the work model next to each
  // case), "auto" (ncu where it is found, else the estimate).
  std::string bounds = "auto";
  double ncu_timeout = 600;  // seconds for one ncu run (one a frame size)
  std::string ncu_log;       // keep ncu's CSV output there ("": not kept)
  bool ncu_probe = false;    // internal: run each case once, for ncu to profile, and time nothing
  bool thinning_tilings = false;  // internal: thinning once per tiling (cuda::thinning_tilings)
};

int bench_command(const BenchArguments& args);

}  // namespace fp::cli
