// The CUDA backend's per-frame work for each processing stage (core/ops/frame_op.hpp),
// the same set as cpu/frame_ops.hpp. This header includes no CUDA header, so that every
// build can name the factories; only CUDA builds define them, and a stage names them
// through FP_CUDA_ONLY (stages/backend.hpp), which a build without CUDA never evaluates.
//
// Each op enqueues its kernels on the frame's slot stream and keeps per-slot scratch
// (workspaces, results), made here for `shape.slots` slots on the current device.
#pragma once

#include <memory>
#include <optional>

#include "core/ops/frame_op.hpp"
#include "core/ops/fusion_params.hpp"
#include "core/ops/luma_stats.hpp"
#include "core/ops/nlmeans_params.hpp"
#include "core/ops/temporal_nlmeans_params.hpp"
#include "core/ops/tile_layout.hpp"

namespace fp::cuda {

std::unique_ptr<ops::FrameOp> make_luma_histogram_op(const ops::OpShape& shape, ops::LumaStatsReceiver receiver);
std::unique_ptr<ops::FrameOp> make_mean_smooth_op(int radius);
std::unique_ptr<ops::FrameOp> make_nlmeans_op(const ops::NlmeansParams& params);
std::unique_ptr<ops::FrameOp> make_pyramid_fusion_op(const ops::FusionParams& params, const ops::OpShape& shape);
std::unique_ptr<ops::FrameOp> make_thinning_op(std::optional<int> threshold, const ops::OpShape& shape);
std::unique_ptr<ops::FrameOp> make_tile_op(const ops::TileLayout& layout);
// Keeps its history on the device; frame n's kernels wait for frame n - 1's (an event)
// whatever slots they run in.
std::unique_ptr<ops::FrameOp> make_temporal_nlmeans_op(const ops::TemporalNlmeansParams& params,
                                                       const ops::OpShape& shape);

}  // namespace fp::cuda
