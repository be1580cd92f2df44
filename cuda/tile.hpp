// tile on the GPU: the same placement as cpu/tile.hpp, as 2D device-to-device copies (and a
// 2D memset for `fill`) enqueued on `stream` in that order, so a later source overwrites an
// earlier one exactly where the CPU's would. No kernel: the copy engines do the work.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <span>

#include "core/image_view.hpp"
#include "core/ops/tile_layout.hpp"

namespace fp::cuda {

void tile_plane(std::span<const ConstImageU8> sources, std::span<const ops::TileOrigin> origins, ImageU8 dst,
                std::optional<std::uint8_t> fill, cudaStream_t stream);

}  // namespace fp::cuda
