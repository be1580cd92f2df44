#include "cuda/tile.hpp"

#include <stdexcept>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {

void tile_plane(std::span<const ConstImageU8> sources, std::span<const ops::TileOrigin> origins, ImageU8 dst,
                std::optional<std::uint8_t> fill, cudaStream_t stream) {
  if (sources.size() != origins.size()) throw std::invalid_argument("tile_plane: one origin per source");
  if (fill)
    FP_CUDA_CHECK(cudaMemset2DAsync(dst.data, static_cast<std::size_t>(dst.pitch), *fill,
                                    static_cast<std::size_t>(dst.width), static_cast<std::size_t>(dst.height), stream));
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const ConstImageU8& src = sources[i];
    const ops::TileCopy copy = ops::clip_tile(src.width, src.height, origins[i], dst.width, dst.height);
    if (copy.width == 0 || copy.height == 0) continue;
    FP_CUDA_CHECK(cudaMemcpy2DAsync(dst.row(copy.y) + copy.x, static_cast<std::size_t>(dst.pitch), src.data,
                                    static_cast<std::size_t>(src.pitch), static_cast<std::size_t>(copy.width),
                                    static_cast<std::size_t>(copy.height), cudaMemcpyDeviceToDevice, stream));
  }
}

}  // namespace fp::cuda
