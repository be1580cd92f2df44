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
//    into dst: no float copy of the inputs or of the result;
//  - with N >= 4 the top three levels s = N-3 .. N-1 are one launch (top_levels_kernel):
//    those levels are small (at 1080p with 5 levels, 480x270 and less), and their four
//    launches (two reduces, two collapses) were mostly waiting on one another with a few
//    blocks each. A block makes a tile of R_s from G_s alone, recomputing the two smaller
//    levels over windows that overlap its neighbours' (G_s is read ~4 times over).
// N levels take 2(N-1) launches for N <= 3 and 2(N-1) - 3 for N >= 4 (one for N = 1); at
// 1080p with 5 levels: reduce 0->1, reduce 1->2, top levels 2..4, collapse 1, collapse 0.
//
// Every kernel is launched with programmatic dependent launch: the next launch's blocks are
// scheduled while this one finishes, and wait (griddepcontrol.wait) before touching memory,
// so the order is the stream's but the drain-and-launch gap between two kernels is gone.
//
// Instructions, in the two big launches (reduce 0->1, collapse 0): the reduce copies its
// fine window into shared memory once (each byte read once, coalesced) before blurring;
// expand_line uses selects, not a branch, since neighbouring threads have fine coordinates
// of both parities; the collapse's rows have a parity known at compile time, so a thread's
// four rows share their coarse rows' shared loads.
//
// Exactness: every float operation is written with __fadd_rn/__fsub_rn/__fmul_rn, which
// nvcc never contracts into a fused multiply-add, in the order of the CPU code. The GPU
// then computes the CPU's values bit for bit (cpu/pyramid_fusion.cpp is built without
// contraction, for the same reason), and the tests require equal results: max_abs and
// max_energy choose between two coefficients, and a choice flipped by a last-bit difference
// could move the output by far more than one level. One identity is used: 0 + x is x for a
// square x (>= +0), so the energy sums start at their first square instead of at zero.
// The phases are __host__ __device__ functions: stepped through on the CPU one phase at a
// time (all threads of a block, block by block), they reproduce cpu::pyramid_fusion, which
// is how the windows of the top-levels kernel were checked before they ran on a GPU.
#include "cuda/pyramid_fusion.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {
namespace {

// ---------------------------------------------------------------------------------------
// Helpers. The phases below are __host__ __device__ so that a harness can step a block's
// threads through them one phase at a time on the CPU; the host branches are plain float
// operations, to be built without contraction like cpu/pyramid_fusion.cpp.

#define FP_HD FP_HOST_DEVICE
#ifdef __CUDA_ARCH__
#define FP_UNROLL _Pragma("unroll")
#else
#define FP_UNROLL
#endif

FP_HD inline float add(float x, float y) {
#ifdef __CUDA_ARCH__
  return __fadd_rn(x, y);
#else
  return x + y;
#endif
}
FP_HD inline float sub(float x, float y) {
#ifdef __CUDA_ARCH__
  return __fsub_rn(x, y);
#else
  return x - y;
#endif
}
FP_HD inline float mul(float x, float y) {
#ifdef __CUDA_ARCH__
  return __fmul_rn(x, y);
#else
  return x * y;
#endif
}

FP_HD inline int clamp_index(int i, int n) { return i < 0 ? 0 : (i >= n ? n - 1 : i); }

// One pixel as float; the planes are read-only for the whole launch, so the read-only
// cache path is safe.
template <class T>
FP_HD inline float load(ImageView<const T> image, int x, int y) {
#ifdef __CUDA_ARCH__
  return static_cast<float>(__ldg(image.row(y) + x));
#else
  return static_cast<float>(image.row(y)[x]);
#endif
}

// The CPU's out = round(clamp(v, 0, 255)); roundf is half away from zero, which on the
// clamped non-negative value is round-half-up.
FP_HD inline std::uint8_t to_u8(float v) {
  return static_cast<std::uint8_t>(roundf(fminf(fmaxf(v, 0.0f), 255.0f)));
}

template <class T>
FP_HD inline void store(ImageView<T> image, int x, int y, float v) {
  if constexpr (std::is_same_v<T, std::uint8_t>)
    image(x, y) = to_u8(v);
  else
    image(x, y) = v;
}

// The CPU's unnormalized binomial a + 4b + 6c + 4d + e, added left to right.
FP_HD inline float binomial(float a, float b, float c, float d, float e) {
  return add(add(add(add(a, mul(4.0f, b)), mul(6.0f, c)), mul(4.0f, d)), e);
}

// binomial of five consecutive entries of a line, `stride` apart.
FP_HD inline float binomial_line(const float* p, int stride) {
  return binomial(p[0], p[stride], p[2 * stride], p[3 * stride], p[4 * stride]);
}

// expand along one axis, the CPU's expand_taps: fine coordinate i takes (1/8, 6/8, 1/8) of
// coarse i/2-1, i/2, i/2+1 when even and (1/2, 1/2) of i/2, i/2+1 when odd. `c` points at
// coarse i/2 in a line whose entries already hold the clamped coarse samples, `stride` is
// the distance between neighbours (c[-stride] is read in both cases). Same terms, same
// order as the CPU. Written with selects rather than a branch: neighbouring threads often
// have fine coordinates of both parities, and a branch would run both paths one after the
// other; where `even` is known at compile time the selects fold away.
FP_HD inline float expand_line(const float* c, int stride, bool even) {
  const float head = even ? add(mul(0.125f, c[-stride]), mul(0.75f, c[0])) : mul(0.5f, c[0]);
  return add(head, mul(even ? 0.125f : 0.5f, c[stride]));
}

// Programmatic dependent launch (every kernel is launched with it, see launch()): let the
// next kernel on the stream be scheduled now, so that its blocks are resident and waiting
// when this grid ends instead of being launched then; then wait until the previous grid has
// completed and its writes are visible. Nothing is read or written before the wait, so the
// stream order is kept as without the attribute. (Before sm_90 both are no-ops and the
// launches are serialized as usual.)
__device__ __forceinline__ void follow_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

constexpr int kThreadsX = 32;
constexpr int kThreadsY = 8;
constexpr int kThreads = kThreadsX * kThreadsY;

// ---------------------------------------------------------------------------------------
// reduce: G_{i+1} of both inputs from G_i in one pass.
//
// A block makes a kReduceTileX x kReduceTileY tile of coarse pixels. Pass 1 copies the fine
// window its taps touch (2*tile+3 rows and columns, clamped) into shared memory as float,
// each fine pixel read once and coalesced; pass 2 blurs along x at the even columns; pass 3
// blurs those along y and decimates. The taps are unnormalized and 1/256 is applied at the
// end, as on the CPU.

constexpr int kReduceTileX = 32;
constexpr int kReduceTileY = 16;
constexpr int kReduceRows = 2 * kReduceTileY + 3;
constexpr int kReduceColumns = 2 * kReduceTileX + 3;
static_assert(kReduceTileX == kThreadsX && kReduceTileY % kThreadsY == 0);

struct ReduceShared {
  float fine[2][kReduceRows][kReduceColumns];  // entry (c, j): fine (clamp(fx0+c), clamp(fy0+j))
  float across[2][kReduceRows][kReduceTileX];
};

template <class T>
FP_HD void reduce_load(ImageView<const T> a, ImageView<const T> b, ReduceShared& s, int bx, int by, int tid) {
  const int fx0 = 2 * bx * kReduceTileX - 2;  // the fine column of entry 0 (before clamping)
  const int fy0 = 2 * by * kReduceTileY - 2;  // the fine row of entry 0
  for (int i = tid; i < kReduceRows * kReduceColumns; i += kThreads) {
    const int j = i / kReduceColumns;
    const int c = i % kReduceColumns;
    const int x = clamp_index(fx0 + c, a.width);
    const int y = clamp_index(fy0 + j, a.height);
    s.fine[0][j][c] = load(a, x, y);
    s.fine[1][j][c] = load(b, x, y);
  }
}

// Coarse column cx0+k takes fine columns 2(cx0+k)-2 .. +2, entries 2k .. 2k+4. Columns past
// the coarse edge are computed from clamped taps and never stored.
FP_HD void reduce_rows(ReduceShared& s, int tid) {
  for (int i = tid; i < kReduceRows * kReduceTileX; i += kThreads) {
    const int j = i / kReduceTileX;
    const int k = i % kReduceTileX;
    s.across[0][j][k] = binomial_line(&s.fine[0][j][2 * k], 1);
    s.across[1][j][k] = binomial_line(&s.fine[1][j][2 * k], 1);
  }
}

FP_HD void reduce_columns(const ReduceShared& s, ImageF32 coarse_a, ImageF32 coarse_b, int bx, int by, int tid) {
  const int k = tid % kThreadsX;
  const int cx = bx * kReduceTileX + k;
  if (cx >= coarse_a.width) return;
FP_UNROLL
  for (int r = 0; r < kReduceTileY / kThreadsY; ++r) {
    const int local = tid / kThreadsX + r * kThreadsY;
    const int cy = by * kReduceTileY + local;
    if (cy >= coarse_a.height) break;
    // Coarse row cy takes fine rows 2cy-2 .. 2cy+2, which are across rows 2*local .. +4.
    const int j = 2 * local;
    coarse_a(cx, cy) = mul(binomial_line(&s.across[0][j][k], kReduceTileX), 1.0f / 256.0f);
    coarse_b(cx, cy) = mul(binomial_line(&s.across[1][j][k], kReduceTileX), 1.0f / 256.0f);
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    reduce_kernel(ImageView<const T> a, ImageView<const T> b, ImageF32 coarse_a, ImageF32 coarse_b) {
  __shared__ ReduceShared s;
  follow_previous_grid();
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  reduce_load(a, b, s, blockIdx.x, blockIdx.y, tid);
  __syncthreads();
  reduce_rows(s, tid);
  __syncthreads();
  reduce_columns(s, coarse_a, coarse_b, blockIdx.x, blockIdx.y, tid);
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
//  1. the coarse tile of Ga_{i+1}, Gb_{i+1}, R_{i+1} with clamped coordinates: entry (k, j)
//     is coarse (clamp(cx0+k), clamp(cy0+j)) -- loaded (or, at the base, averaged) by
//     collapse_load_coarse, or made in shared memory by the top-levels kernel;
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

template <ops::FusionRule Rule>
struct CollapseShared {
  static constexpr int kHalo = Rule == ops::FusionRule::MaxEnergy ? 1 : 0;
  static constexpr int kRegionX = kTileX + 2 * kHalo;
  static constexpr int kRegionY = kTileY + 2 * kHalo;
  // 0: Ga_{i+1}, 1: Gb_{i+1}, 2: R_{i+1}.
  float coarse[3][kCoarseY][kCoarseX];
  float across[3][kCoarseY][kRegionX];
  // Only max_energy keeps L over the region; the other rules use a token array.
  float lap[2][kHalo ? kRegionY : 1][kHalo ? kRegionX : 1];
};

// Where a block's tile of level i is and what it reads there.
template <class TIn>
struct CollapseTile {
  ImageView<const TIn> ga;
  ImageView<const TIn> gb;
  int x0;
  int y0;
  FP_HD int cx0() const { return x0 / 2 - 2; }
  FP_HD int cy0() const { return y0 / 2 - 2; }
};

template <class TIn, ops::FusionRule Rule>
FP_HD void collapse_load_coarse(const CollapseTile<TIn>& t, ConstImageF32 coarse_a, ConstImageF32 coarse_b,
                                ConstImageF32 coarse_r, bool coarse_is_base, CollapseShared<Rule>& s, int tid) {
  for (int i = tid; i < kCoarseY * kCoarseX; i += kThreads) {
    const int j = i / kCoarseX;
    const int k = i % kCoarseX;
    const int cy = clamp_index(t.cy0() + j, coarse_a.height);
    const int cx = clamp_index(t.cx0() + k, coarse_a.width);
    const float va = load(coarse_a, cx, cy);
    const float vb = load(coarse_b, cx, cy);
    s.coarse[0][j][k] = va;
    s.coarse[1][j][k] = vb;
    // The base level is fused by averaging with gain 1: (a + b) * 0.5 (* 1, exact).
    s.coarse[2][j][k] = coarse_is_base ? mul(add(va, vb), 0.5f) : load(coarse_r, cx, cy);
  }
}

template <class TIn, ops::FusionRule Rule>
FP_HD void collapse_expand_rows(const CollapseTile<TIn>& t, CollapseShared<Rule>& s, int tid) {
  constexpr int kHalo = CollapseShared<Rule>::kHalo;
  constexpr int kRegionX = CollapseShared<Rule>::kRegionX;
  const int w = t.ga.width;
  for (int i = tid; i < kCoarseY * kRegionX; i += kThreads) {
    const int j = i / kRegionX;
    const int k = i % kRegionX;
    const int x = clamp_index(t.x0 - kHalo + k, w);
    const int c = (x >> 1) - t.cx0();  // within [1, kCoarseX-2], see above
    const bool even = (x & 1) == 0;
FP_UNROLL
    for (int p = 0; p < 3; ++p) s.across[p][j][k] = expand_line(&s.coarse[p][j][c], 1, even);
  }
}

// L at fine pixel (x, y), region column k: G_i minus expand(G_{i+1}) along y of the
// x-expanded rows; c is coarse row y/2 in the tile.
template <class TIn, ops::FusionRule Rule>
FP_HD inline void collapse_laplacian(const CollapseTile<TIn>& t, const CollapseShared<Rule>& s, int x, int y, int k,
                                     int c, bool even, float& la, float& lb) {
  constexpr int kRegionX = CollapseShared<Rule>::kRegionX;
  la = sub(load(t.ga, x, y), expand_line(&s.across[0][c][k], kRegionX, even));
  lb = sub(load(t.gb, x, y), expand_line(&s.across[1][c][k], kRegionX, even));
}

// L over the region (max_energy only).
template <class TIn, ops::FusionRule Rule>
FP_HD void collapse_laplacians(const CollapseTile<TIn>& t, CollapseShared<Rule>& s, int tid) {
  constexpr int kRegionX = CollapseShared<Rule>::kRegionX;
  constexpr int kRegionY = CollapseShared<Rule>::kRegionY;
  for (int i = tid; i < kRegionY * kRegionX; i += kThreads) {
    const int j = i / kRegionX;
    const int k = i % kRegionX;
    const int x = clamp_index(t.x0 - CollapseShared<Rule>::kHalo + k, t.ga.width);
    const int y = clamp_index(t.y0 - CollapseShared<Rule>::kHalo + j, t.ga.height);
    collapse_laplacian(t, s, x, y, k, (y >> 1) - t.cy0(), (y & 1) == 0, s.lap[0][j][k], s.lap[1][j][k]);
  }
}

// The outputs; threads outside the image leave (no barrier follows this phase).
template <class TIn, class TOut, ops::FusionRule Rule>
FP_HD void collapse_outputs(const CollapseTile<TIn>& t, const CollapseShared<Rule>& s, ImageView<TOut> out, float gain,
                            int tid) {
  constexpr int kHalo = CollapseShared<Rule>::kHalo;
  constexpr int kRegionX = CollapseShared<Rule>::kRegionX;
  const int w = t.ga.width;
  const int h = t.ga.height;
  const int tx = tid % kThreadsX;
  const int x = t.x0 + tx;
  if (x >= w) return;
  const int ty0 = (tid / kThreadsX) * kRowsPerThread;
  // Row ty0+r is even for even r (y0 and ty0 are even): its coarse row and taps are known
  // when the loop is unrolled, and the rows' shared loads are shared between them.
  static_assert(kTileY % 2 == 0 && kRowsPerThread % 2 == 0);
  const int c0 = (t.y0 + ty0) / 2 - t.cy0();

  // max_energy: squares of the 3x3 window, row slot 0 above, 1 centre, 2 below; columns
  // left, centre, right. Sliding down a row moves the slots up and loads one new row.
  float qa[3][3];
  float qb[3][3];
  auto load_squares = [&](int slot, int j) {
FP_UNROLL
    for (int c = 0; c < 3; ++c) {
      const float la = s.lap[0][kHalo ? j : 0][kHalo ? tx + c : 0];
      const float lb = s.lap[1][kHalo ? j : 0][kHalo ? tx + c : 0];
      qa[slot][c] = mul(la, la);
      qb[slot][c] = mul(lb, lb);
    }
  };
  if constexpr (kHalo != 0) {
    // Output row ty (tile coordinates) is region row ty+1; its window is region rows ty..ty+2.
    load_squares(0, ty0);
    load_squares(1, ty0 + 1);
  }

FP_UNROLL
  for (int r = 0; r < kRowsPerThread; ++r) {
    const int ty = ty0 + r;
    const int y = t.y0 + ty;
    if (y >= h) break;

    float f;
    if constexpr (Rule == ops::FusionRule::MaxEnergy) {
      load_squares(2, ty + 2);
      // Row-major from zero, as the CPU adds them, so both inputs' sums compare the same way.
      // The first term is a square (>= +0), so 0 + it is it: the sums start there.
      float ea = qa[0][0];
      float eb = qb[0][0];
FP_UNROLL
      for (int n = 1; n < 9; ++n) {
        ea = add(ea, qa[n / 3][n % 3]);
        eb = add(eb, qb[n / 3][n % 3]);
      }
      f = ea >= eb ? s.lap[0][ty + 1][tx + 1] : s.lap[1][ty + 1][tx + 1];
FP_UNROLL
      for (int c = 0; c < 3; ++c) {
        qa[0][c] = qa[1][c];
        qa[1][c] = qa[2][c];
        qb[0][c] = qb[1][c];
        qb[1][c] = qb[2][c];
      }
    } else {
      float la;
      float lb;
      collapse_laplacian(t, s, x, y, tx, c0 + r / 2, r % 2 == 0, la, lb);
      if constexpr (Rule == ops::FusionRule::Average)
        f = mul(add(la, lb), 0.5f);
      else
        f = fabsf(la) >= fabsf(lb) ? la : lb;
    }

    const float up = expand_line(&s.across[2][c0 + r / 2][tx + kHalo], kRegionX, r % 2 == 0);
    store(out, x, y, add(mul(f, gain), up));
  }
}

template <class TIn, class TOut, ops::FusionRule Rule>
__global__ void __launch_bounds__(kThreads)
    fuse_collapse_kernel(ImageView<const TIn> ga, ImageView<const TIn> gb, ConstImageF32 coarse_a,
                         ConstImageF32 coarse_b, ConstImageF32 coarse_r, bool coarse_is_base, ImageView<TOut> out,
                         float gain) {
  __shared__ CollapseShared<Rule> s;
  follow_previous_grid();
  const CollapseTile<TIn> t{ga, gb, static_cast<int>(blockIdx.x) * kTileX, static_cast<int>(blockIdx.y) * kTileY};
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  collapse_load_coarse(t, coarse_a, coarse_b, coarse_r, coarse_is_base, s, tid);
  __syncthreads();
  collapse_expand_rows(t, s, tid);
  __syncthreads();
  if constexpr (CollapseShared<Rule>::kHalo != 0) {
    collapse_laplacians(t, s, tid);
    __syncthreads();
  }
  collapse_outputs(t, s, out, gain, tid);
}

// ---------------------------------------------------------------------------------------
// The top three levels in one launch: R_s from G_s, where s = N-3 (levels A = s, B = s+1,
// C = s+2 = the base). A block makes one kTileX x kTileY tile of R_A; it reduces G_A twice
// and collapses B in shared memory over just the windows that tile needs, recomputing the
// windows' overlap with its neighbours' (G_A is read ~4 times over), then runs the collapse
// phases above on A. At 1080p with 5 levels A is 480x270: 135 blocks instead of four launches
// of 20 to 135 blocks that each waited on the one before.
//
// Every window is a range [lo, lo+n) of unclamped coordinates of its level whose entry u
// holds the level's value at clamp(lo+u), as the collapse's coarse tile does. A consumer at
// the in-range coordinate p reads its taps at the unclamped 2p-2 .. 2p+2 (reduce) or
// p/2-1 .. p/2+1 (expand) straight from the window, which then hold the clamped taps the
// CPU reads. With m = x0/2 (x0 a multiple of kTileX, so m is even; likewise in y):
//   level B, R_B and Ga_B, Gb_B for A's collapse (its coarse tile): [m-2, m+kTileX/2+2)
//   level B, L_B (max_energy's 3x3 window around those):           [m-3, m+kTileX/2+3)
//   level C, for the expands at those:          [m/2-3, m/2+kTileX/4+3)  ((m-3)/2-1 = m/2-3)
//   level B, G_B for the reduce to that:        [m-8, m+kTileX/2+7)      (2(m/2-3)-2 = m-8)
//   level A, rows of G_A for the reduce to that: [x0-18, x0+kTileX+15)
// The other rules need no 3x3 window, but the windows are the same for all three.

constexpr int kTopB = kTileX / 2 + 15;  // G_B window
constexpr int kTopL = kTileX / 2 + 6;   // L_B window
constexpr int kTopC = kTileX / 4 + 6;   // level C window
constexpr int kTopA = kTileX + 33;      // rows of G_A
static_assert(kTileX == kTileY && kTileX % 4 == 0);

template <ops::FusionRule Rule>
struct TopShared {
  float gb[2][kTopB][kTopB];  // G_B of both inputs
  union {
    float ahx[2][kTopA][kTopB];  // G_A blurred along x at G_B's columns, rows of G_A
    struct {
      float bhx[2][kTopB][kTopC];  // G_B blurred along x at level C's columns
      float gc[3][kTopC][kTopC];   // Ga_C, Gb_C and the base R_C
      float cx[3][kTopC][kTopL];   // those expanded along x at L_B's columns
      float lb[2][kTopL][kTopL];   // L_B of both inputs
      CollapseShared<Rule> collapse;
    } late;
  };
};

struct TopTile {
  ConstImageF32 ga;  // G_A of both inputs
  ConstImageF32 gb;
  int x0;  // the tile's origin in level A
  int y0;
  int wb, hb, wc, hc;  // the sizes of levels B and C
  FP_HD int mx() const { return x0 / 2; }
  FP_HD int my() const { return y0 / 2; }
};

FP_HD inline TopTile top_tile(ConstImageF32 ga, ConstImageF32 gb, int bx, int by) {
  TopTile t{ga, gb, bx * kTileX, by * kTileY, 0, 0, 0, 0};
  t.wb = (ga.width + 1) / 2;
  t.hb = (ga.height + 1) / 2;
  t.wc = (t.wb + 1) / 2;
  t.hc = (t.hb + 1) / 2;
  return t;
}

// G_A's rows blurred along x at the even columns 2u, u in the G_B window.
template <ops::FusionRule Rule>
FP_HD void top_blur_a_rows(const TopTile& t, TopShared<Rule>& s, int tid) {
  const int w = t.ga.width;
  const int h = t.ga.height;
  for (int i = tid; i < 2 * kTopA * kTopB; i += kThreads) {
    const int p = i / (kTopA * kTopB);
    const int j = i / kTopB % kTopA;
    const int k = i % kTopB;
    const ConstImageF32 g = p == 0 ? t.ga : t.gb;
    const int y = clamp_index(t.y0 - 18 + j, h);
    const int x = 2 * clamp_index(t.mx() - 8 + k, t.wb);
    s.ahx[p][j][k] = binomial(load(g, clamp_index(x - 2, w), y), load(g, clamp_index(x - 1, w), y), load(g, x, y),
                              load(g, clamp_index(x + 1, w), y), load(g, clamp_index(x + 2, w), y));
  }
}

// G_B over its window: the blurred rows 2v-2 .. 2v+2 along y, 1/256.
template <ops::FusionRule Rule>
FP_HD void top_reduce_to_b(const TopTile& t, TopShared<Rule>& s, int tid) {
  for (int i = tid; i < 2 * kTopB * kTopB; i += kThreads) {
    const int p = i / (kTopB * kTopB);
    const int l = i / kTopB % kTopB;
    const int k = i % kTopB;
    const int v = clamp_index(t.my() - 8 + l, t.hb);
    const int j = 2 * v - 2 - (t.y0 - 18);
    s.gb[p][l][k] = mul(binomial_line(&s.ahx[p][j][k], kTopB), 1.0f / 256.0f);
  }
}

// G_B's rows blurred along x at the even columns 2c, c in the level C window.
template <ops::FusionRule Rule>
FP_HD void top_blur_b_rows(const TopTile& t, TopShared<Rule>& s, int tid) {
  for (int i = tid; i < 2 * kTopB * kTopC; i += kThreads) {
    const int p = i / (kTopB * kTopC);
    const int l = i / kTopC % kTopB;
    const int k = i % kTopC;
    const int c = clamp_index(t.mx() / 2 - 3 + k, t.wc);
    s.late.bhx[p][l][k] = binomial_line(&s.gb[p][l][2 * c - 2 - (t.mx() - 8)], 1);
  }
}

// Ga_C, Gb_C over the level C window, and the base R_C = (Ga_C + Gb_C) / 2 (gain 1).
template <ops::FusionRule Rule>
FP_HD void top_reduce_to_c(const TopTile& t, TopShared<Rule>& s, int tid) {
  for (int i = tid; i < kTopC * kTopC; i += kThreads) {
    const int l = i / kTopC;
    const int k = i % kTopC;
    const int c = clamp_index(t.my() / 2 - 3 + l, t.hc);
    const int j = 2 * c - 2 - (t.my() - 8);
    const float va = mul(binomial_line(&s.late.bhx[0][j][k], kTopC), 1.0f / 256.0f);
    const float vb = mul(binomial_line(&s.late.bhx[1][j][k], kTopC), 1.0f / 256.0f);
    s.late.gc[0][l][k] = va;
    s.late.gc[1][l][k] = vb;
    s.late.gc[2][l][k] = mul(add(va, vb), 0.5f);
  }
}

// Level C's rows expanded along x at the L_B window's columns.
template <ops::FusionRule Rule>
FP_HD void top_expand_c_rows(const TopTile& t, TopShared<Rule>& s, int tid) {
  for (int i = tid; i < 3 * kTopC * kTopL; i += kThreads) {
    const int p = i / (kTopC * kTopL);
    const int l = i / kTopL % kTopC;
    const int k = i % kTopL;
    const int x = clamp_index(t.mx() - 3 + k, t.wb);
    const int c = (x >> 1) - (t.mx() / 2 - 3);
    s.late.cx[p][l][k] = expand_line(&s.late.gc[p][l][c], 1, (x & 1) == 0);
  }
}

// L_B = G_B - expand(G_C) over the L_B window.
template <ops::FusionRule Rule>
FP_HD void top_laplacian_b(const TopTile& t, TopShared<Rule>& s, int tid) {
  for (int i = tid; i < kTopL * kTopL; i += kThreads) {
    const int l = i / kTopL;
    const int k = i % kTopL;
    const int x = clamp_index(t.mx() - 3 + k, t.wb);
    const int y = clamp_index(t.my() - 3 + l, t.hb);
    const int c = (y >> 1) - (t.my() / 2 - 3);
    const bool even = (y & 1) == 0;
    const int gy = y - (t.my() - 8);
    const int gx = x - (t.mx() - 8);
    s.late.lb[0][l][k] = sub(s.gb[0][gy][gx], expand_line(&s.late.cx[0][c][k], kTopL, even));
    s.late.lb[1][l][k] = sub(s.gb[1][gy][gx], expand_line(&s.late.cx[1][c][k], kTopL, even));
  }
}

// R_B = gain_B * rule(La_B, Lb_B) + expand(R_C) over the collapse's coarse tile, which also
// gets Ga_B and Gb_B there.
template <ops::FusionRule Rule>
FP_HD void top_collapse_b(const TopTile& t, TopShared<Rule>& s, float gain_b, int tid) {
  auto& late = s.late;
  for (int i = tid; i < kCoarseY * kCoarseX; i += kThreads) {
    const int l = i / kCoarseX;
    const int k = i % kCoarseX;
    const int x = clamp_index(t.mx() - 2 + k, t.wb);
    const int y = clamp_index(t.my() - 2 + l, t.hb);
    // (x, y) in the L_B window; its clamped neighbours x-1, x+1 are the entries beside it.
    const int lx = x - (t.mx() - 3);
    const int ly = y - (t.my() - 3);
    const float la = late.lb[0][ly][lx];
    const float lb = late.lb[1][ly][lx];
    float f;
    if constexpr (Rule == ops::FusionRule::MaxEnergy) {
      // The CPU's energy: row-major from zero over the clamped 3x3 window (0 + the first
      // square is that square, as above).
      float ea = 0.0f;
      float eb = 0.0f;
FP_UNROLL
      for (int n = 0; n < 9; ++n) {
        const float qa = late.lb[0][ly + n / 3 - 1][lx + n % 3 - 1];
        const float qb = late.lb[1][ly + n / 3 - 1][lx + n % 3 - 1];
        ea = n == 0 ? mul(qa, qa) : add(ea, mul(qa, qa));
        eb = n == 0 ? mul(qb, qb) : add(eb, mul(qb, qb));
      }
      f = ea >= eb ? la : lb;
    } else if constexpr (Rule == ops::FusionRule::Average) {
      f = mul(add(la, lb), 0.5f);
    } else {
      f = fabsf(la) >= fabsf(lb) ? la : lb;
    }
    const int c = (y >> 1) - (t.my() / 2 - 3);
    const float up = expand_line(&late.cx[2][c][lx], kTopL, (y & 1) == 0);
    late.collapse.coarse[0][l][k] = s.gb[0][l + 6][k + 6];
    late.collapse.coarse[1][l][k] = s.gb[1][l + 6][k + 6];
    late.collapse.coarse[2][l][k] = add(mul(f, gain_b), up);
  }
}

template <ops::FusionRule Rule>
__global__ void __launch_bounds__(kThreads)
    top_levels_kernel(ConstImageF32 ga, ConstImageF32 gb, ImageF32 out, float gain_a, float gain_b) {
  __shared__ TopShared<Rule> s;
  follow_previous_grid();
  const TopTile t = top_tile(ga, gb, blockIdx.x, blockIdx.y);
  const int tid = threadIdx.y * kThreadsX + threadIdx.x;
  top_blur_a_rows(t, s, tid);
  __syncthreads();
  top_reduce_to_b(t, s, tid);
  __syncthreads();
  top_blur_b_rows(t, s, tid);
  __syncthreads();
  top_reduce_to_c(t, s, tid);
  __syncthreads();
  top_expand_c_rows(t, s, tid);
  __syncthreads();
  top_laplacian_b(t, s, tid);
  __syncthreads();
  top_collapse_b(t, s, gain_b, tid);
  __syncthreads();
  const CollapseTile<float> ct{ga, gb, t.x0, t.y0};
  collapse_expand_rows(ct, s.late.collapse, tid);
  __syncthreads();
  if constexpr (CollapseShared<Rule>::kHalo != 0) {
    collapse_laplacians(ct, s.late.collapse, tid);
    __syncthreads();
  }
  collapse_outputs(ct, s.late.collapse, out, gain_a, tid);
}

// levels == 1: the "pyramid" is the base alone, averaged, then rounded.
__global__ void __launch_bounds__(kThreads) average_kernel(ConstImageU8 a, ConstImageU8 b, ImageU8 out) {
  follow_previous_grid();
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

// Every kernel goes out with programmatic dependent launch allowed (see
// follow_previous_grid): the launches of one call follow each other without the gap of a
// full drain and launch, which on the small levels is most of a kernel's time.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, cudaStream_t stream, const char* name, Args... args) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = dim3(kThreadsX, kThreadsY);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  check(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...), name);
}

template <class T>
void launch_reduce(ImageView<const T> a, ImageView<const T> b, ImageF32 coarse_a, ImageF32 coarse_b,
                   cudaStream_t stream) {
  launch(reduce_kernel<T>, grid_for(coarse_a.width, coarse_a.height, kReduceTileX, kReduceTileY), stream,
         "pyramid_fusion reduce_kernel", a, b, coarse_a, coarse_b);
}

template <class TIn, class TOut, ops::FusionRule Rule>
void launch_fuse_collapse(ImageView<const TIn> ga, ImageView<const TIn> gb, ConstImageF32 coarse_a,
                          ConstImageF32 coarse_b, ConstImageF32 coarse_r, bool coarse_is_base, ImageView<TOut> out,
                          float gain, cudaStream_t stream) {
  launch(fuse_collapse_kernel<TIn, TOut, Rule>, grid_for(out.width, out.height, kTileX, kTileY), stream,
         "pyramid_fusion fuse_collapse_kernel", ga, gb, coarse_a, coarse_b, coarse_r, coarse_is_base, out, gain);
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

void dispatch_top_levels(ops::FusionRule rule, ConstImageF32 ga, ConstImageF32 gb, ImageF32 out, float gain_a,
                         float gain_b, cudaStream_t stream) {
  const dim3 grid = grid_for(out.width, out.height, kTileX, kTileY);
  const char* name = "pyramid_fusion top_levels_kernel";
  switch (rule) {
    case ops::FusionRule::Average:
      return launch(top_levels_kernel<ops::FusionRule::Average>, grid, stream, name, ga, gb, out, gain_a, gain_b);
    case ops::FusionRule::MaxAbs:
      return launch(top_levels_kernel<ops::FusionRule::MaxAbs>, grid, stream, name, ga, gb, out, gain_a, gain_b);
    case ops::FusionRule::MaxEnergy:
      return launch(top_levels_kernel<ops::FusionRule::MaxEnergy>, grid, stream, name, ga, gb, out, gain_a, gain_b);
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
  if (levels == 1) {
    launch(average_kernel, grid_for(a.width, a.height, kThreadsX, kThreadsY), stream, "pyramid_fusion average_kernel", a,
           b, dst);
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
  auto gain = [&params](int i) {
    const auto level = static_cast<std::size_t>(i);
    return level < params.gain.size() ? params.gain[level] : 1.0f;
  };

  // With 4 or more levels the top three (from `top` on) are one launch that makes R_top
  // from G_top; their G and R planes beyond that stay unused.
  const int top = levels >= 4 ? levels - 3 : levels - 1;

  // Gaussian pyramids of both inputs up to `top`, level 0 read as bytes.
  launch_reduce<std::uint8_t>(a, b, ga[1], gb[1], stream);
  for (int i = 1; i < top; ++i) launch_reduce<float>(ga[i], gb[i], ga[i + 1], gb[i + 1], stream);

  int i = levels - 2;  // the detail level to collapse next
  if (levels >= 4) {
    dispatch_top_levels(params.rule, ga[top], gb[top], r[top], gain(top), gain(top + 1), stream);
    i = top - 1;
  }
  // Fuse and collapse, coarse to fine; level 0 rounds into dst.
  for (; i >= 0; --i) {
    const bool coarse_is_base = i + 1 == levels - 1;
    const ConstImageF32 coarse_r = coarse_is_base ? ConstImageF32{} : ConstImageF32(r[i + 1]);
    if (i == 0)
      dispatch_fuse_collapse<std::uint8_t, std::uint8_t>(params.rule, a, b, ga[1], gb[1], coarse_r, coarse_is_base, dst,
                                                         gain(i), stream);
    else
      dispatch_fuse_collapse<float, float>(params.rule, ga[i], gb[i], ga[i + 1], gb[i + 1], coarse_r, coarse_is_base,
                                           r[i], gain(i), stream);
  }
}

}  // namespace fp::cuda
