// nlmeans: non-local means denoising of the luma (cpu/nlmeans.hpp).
#pragma once

#include <string>
#include <vector>

#include "core/ops/nlmeans_params.hpp"
#include "stages/stage.hpp"

namespace fp {

StageSpec nlmeans_stage_spec();

// nlmeans' parameters h, patch and search, with the CUDA kernel's limits, for every stage that
// runs it (temporal_nlmeans on its current frame); `search_help` says what is searched.
std::vector<ParamSpec> nlmeans_window_params(const std::string& search_help);
ops::NlmeansParams nlmeans_window(const StageParams& params);

}  // namespace fp
