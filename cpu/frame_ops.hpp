// The CPU backend's per-frame work for each processing stage (core/ops/frame_op.hpp): thin
// wrappers that run the definitions in this folder on a frame's planes.
#pragma once

#include <memory>
#include <optional>

#include "core/ops/frame_op.hpp"
#include "core/ops/fusion_params.hpp"
#include "core/ops/luma_stats.hpp"
#include "core/ops/nlmeans_params.hpp"
#include "core/ops/temporal_nlmeans_params.hpp"
#include "core/ops/tile_layout.hpp"

namespace fp::cpu {

// Each writes the output's luma (out.planes[0]) from the first input's (and, for fusion,
// the second's); tile writes all three planes; luma_histogram writes nothing and hands the
// stats to `receiver`; thinning also sets neutral chroma. `threshold`: nullopt for Otsu's.
std::unique_ptr<ops::FrameOp> make_luma_histogram_op(ops::LumaStatsReceiver receiver);
std::unique_ptr<ops::FrameOp> make_mean_smooth_op(int radius);
std::unique_ptr<ops::FrameOp> make_nlmeans_op(const ops::NlmeansParams& params);
std::unique_ptr<ops::FrameOp> make_pyramid_fusion_op(const ops::FusionParams& params);
std::unique_ptr<ops::FrameOp> make_thinning_op(std::optional<int> threshold, const ops::OpShape& shape);
std::unique_ptr<ops::FrameOp> make_tile_op(const ops::TileLayout& layout);
// Keeps the frames that later frames are denoised with; starts anew after a frame that
// follows a gap or has another size.
std::unique_ptr<ops::FrameOp> make_temporal_nlmeans_op(const ops::TemporalNlmeansParams& params);

}  // namespace fp::cpu
