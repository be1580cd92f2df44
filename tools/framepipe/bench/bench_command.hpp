// `framepipe bench` (only in builds with the CUDA backend).
#pragma once

#include <string>
#include <vector>

namespace fp::cli {

struct BenchArguments {
  std::string stage;               // empty: every kernel
  std::vector<std::string> sizes;  // WxH; empty: 1280x720, 1920x1080, 3840x2160
  int runs = 100;
  int warmup = 10;
  std::string json;
};

int bench_command(const BenchArguments& args);

}  // namespace fp::cli
