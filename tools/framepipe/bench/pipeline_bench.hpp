// `framepipe bench --pipeline FILE`: what one stream of a pipeline costs this machine, and
// how many such streams it carries (pipeline/capacity/capacity.hpp). In every build: a CPU
// machine's answer (its encoders) matters as much as a GPU's.
#pragma once

#include <string>

#include "pipeline/config/command_line.hpp"

namespace fp::cli {

struct PipelineBenchArguments {
  std::string file;           // the pipeline (a serve template too)
  ConfigOverrides overrides;  // -i, --set, --device, --decoder
  double seconds = 10;        // measured, after kWarmupSeconds; twice when the pipeline encodes
  bool unpaced = false;       // frames as fast as they come, not at the input's rate
  std::string json;
};

int pipeline_bench_command(const PipelineBenchArguments& args);

}  // namespace fp::cli
