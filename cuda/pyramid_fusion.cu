// The GPU schedule of pyramid_fusion (definition: docs/stages.md, cpu/pyramid_fusion.cpp).
//
// Dependencies decide the launches. G_{i+1} needs a neighbourhood of G_i that other blocks
// produce, so the reduce chain takes one launch per level; each launch reduces both inputs.
// R_i = F_i + expand(R_{i+1}) needs a neighbourhood of R_{i+1}, so the collapse takes one
// launch per level, top-down. Everything else folds into those launches:
//  - the detail level F_i (both Laplacians, the rule, the gain) is computed where R_i is,
//    from G_i and G_{i+1}: L_i is never stored;
//  - the base R_{N-1} = (Ga_{N-1} + Gb_{N-1}) / 2 is formed while the level N-2 launch loads
//    its coarse tile: no launch and no plane for it;
//  - level 0 is read as bytes straight from the inputs, and the level 0 collapse rounds
//    into dst: no float copy of the inputs or of the result.
// N levels take 2(N-1) launches (one for N = 1).
//
// Exactness: every float operation is written with __fadd_rn/__fsub_rn/__fmul_rn, which
// nvcc never contracts into a fused multiply-add, in the order of the CPU code. The GPU
// then computes the CPU's values bit for bit (cpu/pyramid_fusion.cpp is built without
// contraction, for the same reason), and the tests require equal results: max_abs and
// max_energy choose between two coefficients, and a choice flipped by a last-bit difference
// could move the output by far more than one level.
#include "cuda/pyramid_fusion.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {
namespace {

// ---------------------------------------------------------------------------------------
// Device helpers

__device__ __forceinline__ float add(float x, float y) { return __fadd_rn(x, y); }
__device__ __forceinline__ float sub(float x, float y) { return __fsub_rn(x, y); }
__device__ __forceinline__ float mul(float x, float y) { return __fmul_rn(x, y); }

__device__ __forceinline__ int clamp_index(int i, int n) { return min(max(i, 0), n - 1); }

// One pixel as float; the planes are read-only for the whole launch, so the read-only
// cache path is safe.
template <class T>
__device__ __forceinline__ float load(ImageView<const T> image, int x, int y) {
  return static_cast<float>(__ldg(image.row(y) + x));
}

// The CPU's out = round(clamp(v, 0, 255)); roundf is half away from zero, which on the
// clamped non-negative value is round-half-up.
__device__ __forceinline__ std::uint8_t to_u8(float v) {
  return static_cast<std::uint8_t>(roundf(fminf(fmaxf(v, 0.0f), 255.0f)));
}

template <class T>
__device__ __forceinline__ void store(ImageView<T> image, int x, int y, float v) {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    image(x, y) = to_u8(v);
  else
    image(x, y) = v;
}

// expand along one axis, the CPU's expand_taps: fine coordinate i takes (1/8, 6/8, 1/8) of
// coarse i/2-1, i/2, i/2+1 when even and (1/2, 1/2) of i/2, i/2+1 when odd. `c` points at
// coarse i/2 in a line whose entries already hold the clamped coarse samples, `stride` is
// the distance between neighbours. Same terms, same order as the CPU.
__device__ __forceinline__ float expand_line(const float* c, int stride, bool even) {
  if (even) return add(add(mul(0.125f, c[-stride]), mul(0.75f, c[0])), mul(0.125f, c[stride]));
  return add(mul(0.5f, c[0]), mul(0.5f, c[stride]));
}

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;

// ---------------------------------------------------------------------------------------
// reduce: G_{i+1} of both inputs from G_i in one pass.
//
// A block makes a kReduceTileX x kReduceTileY tile of coarse pixels. Pass 1 blurs along x at
// the even columns of every fine row the tile's vertical taps touch (2*tile+3 rows, clamped)
// into shared memory, reading G_i through the cache; pass 2 blurs those along y and
// decimates. The taps are unnormalized and 1/256 is applied at the end, as on the CPU.

constexpr int kReduceTileX = 32;
constexpr int kReduceTileY = 16;
constexpr int kReduceRows = 2 * kReduceTileY + 3;
static_assert(kReduceTileX == kThreadsX && kReduceTileY % kThreadsY == 0);

template <class T>
__global__ void __launch_bounds__(kThreads)
    reduce_kernel(ImageView<const T> a, ImageView<const T> b, ImageF32 coarse_a, ImageF32 coarse_b) {
  __shared__ float across[2][kReduceRows][kReduceTileX];

  const int w = a.width;
  const int h = a.height;
  const int cx0 = blockIdx.x * kReduceTileX;
  const int cy0 = blockIdx.y * kReduceTileY;
  const int fy0 = 2 * cy0 - 2;  // the fine row of across row 0 (before clamping)
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;

  for (int i = tid; i < kReduceRows * kReduceTileX; i += kThreads) {
    const int j = i / kReduceTileX;
    const int k = i % kReduceTileX;
    const int y = clamp_index(fy0 + j, h);
    // Columns past the coarse edge are computed from clamped taps and never stored.
    const int x = 2 * (cx0 + k);
    const int xm2 = clamp_index(x - 2, w);
    const int xm1 = clamp_index(x - 1, w);
    const int xc = clamp_index(x, w);
    const int xp1 = clamp_index(x + 1, w);
    const int xp2 = clamp_index(x + 2, w);
    across[0][j][k] = add(add(add(add(load(a, xm2, y), mul(4.0f, load(a, xm1, y))), mul(6.0f, load(a, xc, y))),
                              mul(4.0f, load(a, xp1, y))),
                          load(a, xp2, y));
    across[1][j][k] = add(add(add(add(load(b, xm2, y), mul(4.0f, load(b, xm1, y))), mul(6.0f, load(b, xc, y))),
                              mul(4.0f, load(b, xp1, y))),
                          load(b, xp2, y));
  }
  __syncthreads();

  const int cx = cx0 + threadIdx.x;
  if (cx >= coarse_a.width) return;  // no barrier follows
#pragma unroll
  for (int r = 0; r < kReduceTileY / kThreadsY; ++r) {
    const int local = threadIdx.y + r * kThreadsY;
    const int cy = cy0 + local;
    if (cy >= coarse_a.height) break;
    // Coarse row cy takes fine rows 2cy-2 .. 2cy+2, which are across rows 2*local .. +4.
    const int j = 2 * local;
#pragma unroll
    for (int p = 0; p < 2; ++p) {
      const float (*s)[kReduceTileX] = across[p];
      const int k = threadIdx.x;
      const float v = mul(add(add(add(add(s[j][k], mul(4.0f, s[j + 1][k])), mul(6.0f, s[j + 2][k])),
                                  mul(4.0f, s[j + 3][k])),
                              s[j + 4][k]),
                          1.0f / 256.0f);
      (p == 0 ? coarse_a : coarse_b)(cx, cy) = v;
    }
  }
}

// ---------------------------------------------------------------------------------------
// fuse + collapse of detail level i: R_i = gain_i * rule(La_i, Lb_i) + expand(R_{i+1}),
// where L_i = G_i - expand(G_{i+1}).
//
// A block makes a kTileX x kTileY tile of R_i; each thread one column of kRowsPerThread
// consecutive rows. max_energy needs L on the tile plus a 1-pixel halo (kHalo); the other
// rules need the tile only. The "region" is the tile plus halo; region pixel (k, j) is fine
// pixel (clamp(x0-halo+k), clamp(y0-halo+j)), so the halo replicates the border exactly as
// the CPU's clamped 3x3 window does.
//
//  1. load the coarse tile of Ga_{i+1}, Gb_{i+1}, R_{i+1} (or, at the base, their average)
//     with clamped coordinates: entry (k, j) is coarse (clamp(cx0+k), clamp(cy0+j));
//  2. expand along x: every coarse row of the tile, at every region column;
//  3. (max_energy) expand along y and subtract: La, Lb over the region;
//  4. per output pixel: the rule, the gain, + expand(R_{i+1}), store.
//
// The coarse tile starts at cx0 = x0/2 - 2: a region column x >= x0-1 has x/2 >= x0/2-1 and
// reads from x/2-1 >= x0/2-2; a column x <= x0+kTileX reads up to x/2+1 <= x0/2+kTileX/2+1,
// hence kCoarseX = kTileX/2 + 4 entries (likewise in y). x0, y0 are even (tiles are even).

constexpr int kTileX = 32;
constexpr int kTileY = 32;
constexpr int kRowsPerThread = kTileY / kThreadsY;
constexpr int kCoarseX = kTileX / 2 + 4;
constexpr int kCoarseY = kTileY / 2 + 4;
static_assert(kTileX == kThreadsX && kTileY % kThreadsY == 0 && kTileX % 2 == 0 && kTileY % 2 == 0);

template <class TIn, class TOut, ops::FusionRule Rule>
__global__ void __launch_bounds__(kThreads)
    fuse_collapse_kernel(ImageView<const TIn> ga, ImageView<const TIn> gb, ConstImageF32 coarse_a,
                         ConstImageF32 coarse_b, ConstImageF32 coarse_r, bool coarse_is_base, ImageView<TOut> out,
                         float gain) {
  constexpr int kHalo = Rule == ops::FusionRule::MaxEnergy ? 1 : 0;
  constexpr int kRegionX = kTileX + 2 * kHalo;
  constexpr int kRegionY = kTileY + 2 * kHalo;
  // 0: Ga_{i+1}, 1: Gb_{i+1}, 2: R_{i+1}.
  __shared__ float coarse[3][kCoarseY][kCoarseX];
  __shared__ float across[3][kCoarseY][kRegionX];
  // Only max_energy keeps L over the region; the other rules use a token array.
  __shared__ float lap[2][kHalo ? kRegionY : 1][kHalo ? kRegionX : 1];

  const int w = ga.width;
  const int h = ga.height;
  const int cw = coarse_a.width;
  const int ch = coarse_a.height;
  const int x0 = blockIdx.x * kTileX;
  const int y0 = blockIdx.y * kTileY;
  const int cx0 = x0 / 2 - 2;
  const int cy0 = y0 / 2 - 2;
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;

  // 1. coarse tiles
  for (int i = tid; i < kCoarseY * kCoarseX; i += kThreads) {
    const int j = i / kCoarseX;
    const int k = i % kCoarseX;
    const int cy = clamp_index(cy0 + j, ch);
    const int cx = clamp_index(cx0 + k, cw);
    const float va = load(coarse_a, cx, cy);
    const float vb = load(coarse_b, cx, cy);
    coarse[0][j][k] = va;
    coarse[1][j][k] = vb;
    // The base level is fused by averaging with gain 1: (a + b) * 0.5 (* 1, exact).
    coarse[2][j][k] = coarse_is_base ? mul(add(va, vb), 0.5f) : load(coarse_r, cx, cy);
  }
  __syncthreads();

  // 2. expand along x
  for (int i = tid; i < kCoarseY * kRegionX; i += kThreads) {
    const int j = i / kRegionX;
    const int k = i % kRegionX;
    const int x = clamp_index(x0 - kHalo + k, w);
    const int c = (x >> 1) - cx0;  // within [1, kCoarseX-2], see above
    const bool even = (x & 1) == 0;
#pragma unroll
    for (int p = 0; p < 3; ++p) across[p][j][k] = expand_line(&coarse[p][j][c], 1, even);
  }
  __syncthreads();

  // L at region pixel (k, j): G_i minus expand(G_{i+1}) along y of the x-expanded rows.
  auto laplacian = [&](int k, int j, float& la, float& lb) {
    const int x = clamp_index(x0 - kHalo + k, w);
    const int y = clamp_index(y0 - kHalo + j, h);
    const int c = (y >> 1) - cy0;
    const bool even = (y & 1) == 0;
    la = sub(load(ga, x, y), expand_line(&across[0][c][k], kRegionX, even));
    lb = sub(load(gb, x, y), expand_line(&across[1][c][k], kRegionX, even));
  };

  // 3. L over the region (max_energy only)
  if constexpr (kHalo != 0) {
    for (int i = tid; i < kRegionY * kRegionX; i += kThreads) {
      const int j = i / kRegionX;
      const int k = i % kRegionX;
      laplacian(k, j, lap[0][j][k], lap[1][j][k]);
    }
    __syncthreads();
  }

  // 4. outputs; no barrier follows, so threads outside the image may leave.
  const int tx = threadIdx.x;
  const int x = x0 + tx;
  if (x >= w) return;
  const int ty0 = threadIdx.y * kRowsPerThread;

  // max_energy: squares of the 3x3 window, row slot 0 above, 1 centre, 2 below; columns
  // left, centre, right. Sliding down a row moves the slots up and loads one new row.
  float qa[3][3];
  float qb[3][3];
  auto load_squares = [&](int slot, int j) {
#pragma unroll
    for (int c = 0; c < 3; ++c) {
      const float la = lap[0][kHalo ? j : 0][kHalo ? tx + c : 0];
      const float lb = lap[1][kHalo ? j : 0][kHalo ? tx + c : 0];
      qa[slot][c] = mul(la, la);
      qb[slot][c] = mul(lb, lb);
    }
  };
  if constexpr (kHalo != 0) {
    // Output row ty (tile coordinates) is region row ty+1; its window is region rows ty..ty+2.
    load_squares(0, ty0);
    load_squares(1, ty0 + 1);
  }

#pragma unroll
  for (int r = 0; r < kRowsPerThread; ++r) {
    const int ty = ty0 + r;
    const int y = y0 + ty;
    if (y >= h) break;

    float f;
    if constexpr (Rule == ops::FusionRule::MaxEnergy) {
      load_squares(2, ty + 2);
      // Row-major from zero, as the CPU adds them, so both inputs' sums compare the same way.
      float ea = 0.0f;
      float eb = 0.0f;
#pragma unroll
      for (int s = 0; s < 3; ++s)
#pragma unroll
        for (int c = 0; c < 3; ++c) {
          ea = add(ea, qa[s][c]);
          eb = add(eb, qb[s][c]);
        }
      f = ea >= eb ? lap[0][ty + 1][tx + 1] : lap[1][ty + 1][tx + 1];
#pragma unroll
      for (int c = 0; c < 3; ++c) {
        qa[0][c] = qa[1][c];
        qa[1][c] = qa[2][c];
        qb[0][c] = qb[1][c];
        qb[1][c] = qb[2][c];
      }
    } else {
      float la;
      float lb;
      laplacian(tx, ty, la, lb);
      if constexpr (Rule == ops::FusionRule::Average)
        f = mul(add(la, lb), 0.5f);
      else
        f = fabsf(la) >= fabsf(lb) ? la : lb;
    }

    const int c = (y >> 1) - cy0;
    const float up = expand_line(&across[2][c][tx + kHalo], kRegionX, (y & 1) == 0);
    store(out, x, y, add(mul(f, gain), up));
  }
}

// levels == 1: the "pyramid" is the base alone, averaged, then rounded.
__global__ void __launch_bounds__(kThreads) average_kernel(ConstImageU8 a, ConstImageU8 b, ImageU8 out) {
  const int x = blockIdx.x * kThreadsX + threadIdx.x;
  const int y = blockIdx.y * kThreadsY + threadIdx.y;
  if (x >= out.width || y >= out.height) return;
  out(x, y) = to_u8(mul(add(load(a, x, y), load(b, x, y)), 0.5f));
}

// ---------------------------------------------------------------------------------------
// Host side

constexpr std::size_t kPlaneAlignment = 256;  // every plane starts on this boundary
constexpr std::size_t kRowAlignment = 128;    // float rows are whole cache lines

std::size_t align_up(std::size_t n, std::size_t alignment) { return (n + alignment - 1) / alignment * alignment; }

// Where each float plane lives in the workspace, as byte offsets from its aligned start.
// Levels 1..N-1 hold Ga and Gb; levels 1..N-2 also hold R (R_{N-1} is formed on the fly,
// R_0 goes to dst).
struct Layout {
  int width[kMaxFusionLevels] = {};
  int height[kMaxFusionLevels] = {};
  std::size_t pitch[kMaxFusionLevels] = {};
  std::size_t ga[kMaxFusionLevels] = {};
  std::size_t gb[kMaxFusionLevels] = {};
  std::size_t r[kMaxFusionLevels] = {};
  std::size_t bytes = 0;  // including the slack that aligns the start
};

void check_levels(int levels) {
  if (levels < 1 || levels > kMaxFusionLevels)
    throw std::invalid_argument("pyramid_fusion: levels must be in 1.." + std::to_string(kMaxFusionLevels) +
                                ", got " + std::to_string(levels));
}

Layout make_layout(int width, int height, int levels) {
  Layout layout;
  layout.width[0] = width;
  layout.height[0] = height;
  std::size_t offset = 0;
  for (int i = 1; i < levels; ++i) {
    layout.width[i] = (layout.width[i - 1] + 1) / 2;
    layout.height[i] = (layout.height[i - 1] + 1) / 2;
    layout.pitch[i] = align_up(static_cast<std::size_t>(layout.width[i]) * sizeof(float), kRowAlignment);
    const std::size_t plane = align_up(layout.pitch[i] * static_cast<std::size_t>(layout.height[i]), kPlaneAlignment);
    layout.ga[i] = offset;
    offset += plane;
    layout.gb[i] = offset;
    offset += plane;
    if (i < levels - 1) {
      layout.r[i] = offset;
      offset += plane;
    }
  }
  layout.bytes = offset == 0 ? 0 : offset + kPlaneAlignment - 1;
  return layout;
}

std::size_t span_bytes(ConstImageU8 v) {
  return static_cast<std::size_t>(v.pitch) * static_cast<std::size_t>(v.height - 1) + static_cast<std::size_t>(v.width);
}

bool overlap(ConstImageU8 p, ConstImageU8 q) {
  const auto p0 = reinterpret_cast<std::uintptr_t>(p.data);
  const auto q0 = reinterpret_cast<std::uintptr_t>(q.data);
  return p0 < q0 + span_bytes(q) && q0 < p0 + span_bytes(p);
}

dim3 grid_for(int width, int height, int tile_x, int tile_y) {
  return dim3(static_cast<unsigned>((width + tile_x - 1) / tile_x), static_cast<unsigned>((height + tile_y - 1) / tile_y));
}

template <class T>
void launch_reduce(ImageView<const T> a, ImageView<const T> b, ImageF32 coarse_a, ImageF32 coarse_b,
                   cudaStream_t stream) {
  reduce_kernel<T><<<grid_for(coarse_a.width, coarse_a.height, kReduceTileX, kReduceTileY), dim3(kThreadsX, kThreadsY),
                     0, stream>>>(a, b, coarse_a, coarse_b);
  check_launch("pyramid_fusion reduce_kernel");
}

template <class TIn, class TOut, ops::FusionRule Rule>
void launch_fuse_collapse(ImageView<const TIn> ga, ImageView<const TIn> gb, ConstImageF32 coarse_a,
                          ConstImageF32 coarse_b, ConstImageF32 coarse_r, bool coarse_is_base, ImageView<TOut> out,
                          float gain, cudaStream_t stream) {
  fuse_collapse_kernel<TIn, TOut, Rule><<<grid_for(out.width, out.height, kTileX, kTileY), dim3(kThreadsX, kThreadsY),
                                          0, stream>>>(ga, gb, coarse_a, coarse_b, coarse_r, coarse_is_base, out,
                                                       gain);
  check_launch("pyramid_fusion fuse_collapse_kernel");
}

template <class TIn, class TOut>
void dispatch_fuse_collapse(ops::FusionRule rule, ImageView<const TIn> ga, ImageView<const TIn> gb, ConstImageF32 coarse_a,
                            ConstImageF32 coarse_b, ConstImageF32 coarse_r, bool coarse_is_base, ImageView<TOut> out,
                            float gain, cudaStream_t stream) {
  switch (rule) {
    case ops::FusionRule::Average:
      return launch_fuse_collapse<TIn, TOut, ops::FusionRule::Average>(ga, gb, coarse_a, coarse_b, coarse_r, coarse_is_base,
                                                                  out, gain, stream);
    case ops::FusionRule::MaxAbs:
      return launch_fuse_collapse<TIn, TOut, ops::FusionRule::MaxAbs>(ga, gb, coarse_a, coarse_b, coarse_r, coarse_is_base,
                                                                 out, gain, stream);
    case ops::FusionRule::MaxEnergy:
      return launch_fuse_collapse<TIn, TOut, ops::FusionRule::MaxEnergy>(ga, gb, coarse_a, coarse_b, coarse_r,
                                                                    coarse_is_base, out, gain, stream);
  }
  throw std::invalid_argument("pyramid_fusion: unknown rule");
}

}  // namespace

std::size_t pyramid_fusion_workspace_bytes(int width, int height, int levels) {
  check_levels(levels);
  if (width < 0 || height < 0) throw std::invalid_argument("pyramid_fusion: negative size");
  if (width == 0 || height == 0) return 0;
  return make_layout(width, height, levels).bytes;
}

void pyramid_fusion(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const ops::FusionParams& params, void* workspace,
                    std::size_t workspace_bytes, cudaStream_t stream) {
  if (a.width != b.width || a.height != b.height || a.width != dst.width || a.height != dst.height)
    throw std::invalid_argument("pyramid_fusion: the inputs and the output must have one size");
  check_levels(params.levels);
  if (a.empty()) return;
  // The level 0 kernel reads a and b around pixels that other blocks write to dst.
  if (overlap(dst, a) || overlap(dst, b)) throw std::invalid_argument("pyramid_fusion: dst must not overlap an input");

  const int levels = params.levels;
  const dim3 block(kThreadsX, kThreadsY);
  if (levels == 1) {
    average_kernel<<<grid_for(a.width, a.height, kThreadsX, kThreadsY), block, 0, stream>>>(a, b, dst);
    check_launch("pyramid_fusion average_kernel");
    return;
  }

  const Layout layout = make_layout(a.width, a.height, levels);
  if (workspace == nullptr || workspace_bytes < layout.bytes)
    throw std::invalid_argument("pyramid_fusion: the workspace needs " + std::to_string(layout.bytes) + " bytes, got " +
                                std::to_string(workspace == nullptr ? 0 : workspace_bytes));
  auto* base = reinterpret_cast<unsigned char*>(
      align_up(reinterpret_cast<std::uintptr_t>(workspace), kPlaneAlignment));
  auto plane = [&](int i, std::size_t offset) {
    return ImageF32{reinterpret_cast<float*>(base + offset), layout.width[i], layout.height[i],
                    static_cast<std::ptrdiff_t>(layout.pitch[i])};
  };
  ImageF32 ga[kMaxFusionLevels];
  ImageF32 gb[kMaxFusionLevels];
  ImageF32 r[kMaxFusionLevels];
  for (int i = 1; i < levels; ++i) {
    ga[i] = plane(i, layout.ga[i]);
    gb[i] = plane(i, layout.gb[i]);
    if (i < levels - 1) r[i] = plane(i, layout.r[i]);
  }

  // Gaussian pyramids of both inputs, level 0 read as bytes.
  launch_reduce<std::uint8_t>(a, b, ga[1], gb[1], stream);
  for (int i = 1; i + 1 < levels; ++i) launch_reduce<float>(ga[i], gb[i], ga[i + 1], gb[i + 1], stream);

  // Fuse and collapse, coarse to fine; level 0 rounds into dst.
  for (int i = levels - 2; i >= 0; --i) {
    const bool coarse_is_base = i + 1 == levels - 1;
    const ConstImageF32 coarse_r = coarse_is_base ? ConstImageF32{} : ConstImageF32(r[i + 1]);
    const auto level = static_cast<std::size_t>(i);
    const float gain = level < params.gain.size() ? params.gain[level] : 1.0f;
    if (i == 0)
      dispatch_fuse_collapse<std::uint8_t, std::uint8_t>(params.rule, a, b, ga[1], gb[1], coarse_r, coarse_is_base, dst,
                                                         gain, stream);
    else
      dispatch_fuse_collapse<float, float>(params.rule, ga[i], gb[i], ga[i + 1], gb[i + 1], coarse_r, coarse_is_base,
                                           r[i], gain, stream);
  }
}

}  // namespace fp::cuda
