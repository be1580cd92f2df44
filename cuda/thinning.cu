// Zhang-Suen thinning as one persistent cooperative kernel over a bit-packed image, with
// several passes per grid barrier (temporal blocking).
//
// Why this shape: a pass over a 1920x1080 frame is little work (65 k words of 32 pixels),
// so thinning costs the number of global synchronizations times their latency, and a
// frame takes ~170 passes. One launch that iterates to convergence pays no launch or host
// round trip per pass; temporal blocking then divides the grid barriers by K, the passes
// of a round, at the price of recomputing a halo.
//
// Layout: each of two global buffers holds the image as height rows of words_per_row
// words; bit b of word c of a row is pixel x = 32 c + b, and the bits past the width are 0.
// Deleting only ever clears bits and a 0 pixel is never deleted, so those bits, and any
// word outside the image read as 0, stay 0 without being treated apart.
//
// A round: the image is cut into tiles of tile_words x tile_rows words. A block loads a
// tile with a halo of one word left and right and 2K rows above and below into registers:
// each thread holds a run of Q consecutive rows of one column, the lanes of a warp hold
// neighbouring columns (left and right neighbours are shuffles), and the rows just above
// and below a run come through shared memory from the threads that hold them. The block
// runs the 2K sub-iterations of K passes and writes the tile's own words to the other
// buffer; then comes the round's one grid barrier. A sub-iteration decides from the 3x3
// neighbourhood, so the words at the edge of the copy, whose outer neighbours are missing
// (0 stands in above and below, the word itself left and right: whatever stands in, the
// error spreads the same), go stale, one more row (or pixel, left and right) per
// sub-iteration: after 2K the own rows are still exact, and the stale pixels of the halo
// word stay inside it for K <= 16.
//
// Convergence: a block notes which passes of the round deleted a pixel of its own words,
// and the grid keeps the highest such pass index (atomicMax). Once a pass deletes nothing,
// every later pass repeats it, so when the last pass of a round deleted nothing the image
// has converged, the round's output is the result, and the passes to report are the last
// pass that deleted something plus the one that found nothing. After the barrier a block
// loads its next tile before it reads that index, so that the two trips to L2 overlap.
//
// Where the time goes (H100, 1920x1080, 170 passes in 17 rounds of K = 10, ~174 us; the
// round's share fitted to timings at K = 6, 8 and 10 with Q = 8 runs): ~0.39 us per
// sub-iteration, the ALU work of the copy (tile 6 x 88 words, copy 8 x 128 with the halo:
// twice the own words) at about one integer instruction per two cycles and scheduler, and
// ~2.5 us per round for the grid barrier, the loads and the stores: ~130 us and ~43 us.
// A grid barrier that carried the convergence flag itself (one 64-bit atomic counter per
// round parity, polled with volatile loads after __threadfence) measured 3% slower than
// cg's. Skipping converged tiles saves little on the benchmark frame: a large foreground
// region peels for all 170 passes and its border crosses most tiles in most rounds (a
// simulation of the frame's deletions: with tiles any smaller than one per SM, the halo
// costs more than the skipped tiles save, by this file's cost model).
#include "cuda/thinning.hpp"

#include <cooperative_groups.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"

namespace fp::cuda {
namespace {

namespace cg = cooperative_groups;

// One block per SM, whose warps hold a tile: up to two warps per scheduler; the tiling
// (choose_tiling) decides how many of them hold rows.
constexpr int kThreads = 256;
constexpr unsigned kAllLanes = 0xFFFFFFFFU;
// K, the passes of a round, is chosen per image with the tiling (choose_tiling): more
// passes per round mean fewer barriers but more halo rows recomputed per pass. At most 16,
// because the halo word is 32 pixels wide and goes stale one pixel per sub-iteration. Only
// even K: measured on an H100, odd K ran ~8% slower per pass than the even K beside them
// (at 1920x1080 and 3840x2160; the cause was not pinned down).
constexpr int kMaxPassesPerRound = 16;
// Own words per tile row that a tiling may use: tiles of 8, 16 or 32 words with the halo,
// so that a warp holds whole tile rows (shuffles of that width). Narrow tiles are taller
// and recompute fewer halo rows per own word; wide ones waste fewer halo columns.
constexpr std::array<int, 3> kTileWidths = {6, 14, 30};
static_assert(std::all_of(kTileWidths.begin(), kTileWidths.end(),
                          [](int words) { return words >= 1 && 32 % (words + 2) == 0; }),
              "a warp must hold whole tile rows");
static_assert(kThreads % 32 == 0);
// Q, the rows a thread holds: the kernel is compiled for each (they index registers).
// Neither fewer rows a thread (Q = 2) nor two blocks an SM (more warps for a scheduler to
// issue from, each block thinning half as much) paid: timed on an H200 over every tiling of
// the benchmark frames (`framepipe bench --thinning-tilings`, docs/bench), the best with
// two blocks an SM took 230 us at 1920x1080 against 173 for the best with one, 976
// against 962 at 3840x2160 and 128 against 107 at 1280x720; with Q = 2, 238, 1481 and
// 109. The integer pipes, not latency, bound a sub-iteration, and smaller tiles recompute
// more halo and meet at a slower grid barrier. The model's own picks were the fastest of
// all tilings at 1920x1080 and 1280x720 and within 0.3% of it at 3840x2160.
constexpr std::array<int, 3> kRowsPerThread = {4, 8, 16};
// The cost model of choose_tiling, in SM cycles, fitted to timings on an H100: a thread's
// instructions per sub-iteration, per word it holds and per run; a scheduler (four per SM)
// issues one integer instruction of the warps on it every two cycles at best (16 lanes),
// which two warps reach but a lone warp does not quite (it waits on its own latencies:
// at 1920x1080, 8 warps of 4 rows each ran 7% faster than 4 warps of 8 rows, the same tile,
// where an instruction count alone favoured the 4 warps; fitted as 2.4 cycles). Then the
// block barrier of a sub-iteration, and what a round costs beyond its sub-iterations: the
// grid barrier and the tile loads and stores. The instruction counts are estimates of the
// code (no selects at the copy's side edges), the cycles were fitted; the model's choices
// at 1920x1080 (K 10, Q 4, 6 x 88 words) and 3840x2160 (K 16, Q 16, 6 x 384) were the
// fastest of the alternatives measured (other K from 6 to 14, other Q, 14-word tiles).
constexpr double kWordInstructions = 32;
constexpr double kRunInstructions = 21;
constexpr int kSchedulersPerSm = 4;
constexpr double kCyclesPerInstruction = 2;
constexpr double kLoneWarpCyclesPerInstruction = 2.4;
constexpr double kSubIterationCycles = 60;
constexpr double kRoundCycles = 3200;
// The last-change counter, padded so that the buffers start 128-byte aligned.
constexpr std::size_t kCounterBytes = 128;
constexpr std::size_t kBufferAlignWords = 32;
// Keeps every index far from int overflow.
constexpr long long kMaxBufferWords = 1LL << 30;

struct Geometry {
  int words_per_row;         // ceil(width / 32)
  std::size_t buffer_words;  // height * words_per_row, rounded up for alignment
};

Geometry geometry_for(int width, int height) {
  const long long w = std::max(width, 0);
  const long long h = std::max(height, 0);
  const long long words_per_row = (w + 31) / 32;
  const long long words = h * words_per_row;
  if (words > kMaxBufferWords)
    throw std::invalid_argument("thinning: image too large (" + std::to_string(width) + "x" +
                                std::to_string(height) + ")");
  const auto rounded = (static_cast<std::size_t>(words) + kBufferAlignWords - 1) / kBufferAlignWords * kBufferAlignWords;
  return {static_cast<int>(words_per_row), rounded};
}

// How the image is cut into tiles; tile i is column i % tiles_across, row i / tiles_across.
// A tile column of the block's copy (tile_words + 2 words with the halo) is held by
// `segments` threads, Q rows each: segments * Q = tile_rows + 4 K.
struct Tiling {
  int passes_per_round;  // K
  int tile_words;        // own words per tile row
  int rows_per_thread;   // Q
  int segments;          // runs of Q rows per column: a multiple of the runs a warp holds
  int tile_rows;         // own rows per tile
  int tiles_across;
  int tiles;
};

// Modelled SM cycles per pass with `blocks` resident blocks (kRoundCycles and friends).
double modelled_cycles_per_pass(const Tiling& t, int blocks) {
  const int warps = t.segments * (t.tile_words + 2) / 32;
  const int warps_per_scheduler = (warps + kSchedulersPerSm - 1) / kSchedulersPerSm;
  const double cycles_per_instruction =
      warps_per_scheduler > 1 ? kCyclesPerInstruction : kLoneWarpCyclesPerInstruction;
  const double sub_iteration =
      (t.rows_per_thread * kWordInstructions + kRunInstructions) * cycles_per_instruction * warps_per_scheduler +
      kSubIterationCycles;
  const int busiest = (t.tiles + blocks - 1) / blocks;
  return (busiest * 2 * t.passes_per_round * sub_iteration + kRoundCycles) / t.passes_per_round;
}

// The tiling of K passes a round, tiles `tile_words` wide and Q rows a thread, with the fewest
// tiles per block whose threads fit in a block, for `blocks` resident blocks; nullopt when
// this K and Q cannot hold even one own row.
std::optional<Tiling> tiling_for(int words_per_row, int height, int blocks, int k, int tile_words, int rows_per_thread) {
  const int columns = tile_words + 2;
  const long long per_warp = 32 / columns;  // runs that a warp holds
  const long long across = (words_per_row + tile_words - 1) / tile_words;
  for (long long per_block = 1;; ++per_block) {
    const long long bands = per_block * blocks / across;  // rows of tiles, at most
    if (bands < 1) continue;
    const long long rows = (height + bands - 1) / bands;
    const long long runs = (rows + 4LL * k + rows_per_thread - 1) / rows_per_thread;
    const long long segments = (runs + per_warp - 1) / per_warp * per_warp;
    if (segments * columns > kThreads) {
      if (rows == 1) return std::nullopt;
      continue;
    }
    const long long tile_rows = segments * rows_per_thread - 4LL * k;
    return Tiling{k,
                  tile_words,
                  rows_per_thread,
                  static_cast<int>(segments),
                  static_cast<int>(tile_rows),
                  static_cast<int>(across),
                  static_cast<int>(across * ((height + tile_rows - 1) / tile_rows))};
  }
}

// Calls `visit` with every tiling there is for an image with `blocks` resident blocks: each
// K, tile width and Q (none for an empty image). No allocation: choose_tiling runs each frame.
template <class Visit>
void for_each_tiling(int words_per_row, int height, int blocks, Visit visit) {
  if (words_per_row <= 0 || height <= 0) return;
  for (int k = 2; k <= kMaxPassesPerRound; k += 2)
    for (const int tile_words : kTileWidths)
      for (const int rows_per_thread : kRowsPerThread)
        if (const auto t = tiling_for(words_per_row, height, blocks, k, tile_words, rows_per_thread)) visit(*t);
}

// The tiling that the model finds fastest (the first for an empty image: nothing to thin).
Tiling choose_tiling(int words_per_row, int height, int blocks) {
  Tiling best{2, kTileWidths[0], kRowsPerThread[0], 32 / (kTileWidths[0] + 2), 1, 0, 0};
  double best_cycles = std::numeric_limits<double>::max();
  for_each_tiling(words_per_row, height, blocks, [&](const Tiling& t) {
    const double cycles = modelled_cycles_per_pass(t, blocks);
    if (cycles < best_cycles) {
      best_cycles = cycles;
      best = t;
    }
  });
  return best;
}

struct Params {
  const std::uint8_t* src;
  std::ptrdiff_t src_pitch;
  std::uint8_t* dst;
  std::ptrdiff_t dst_pitch;
  int width;
  int height;
  int words_per_row;
  const int* threshold_ptr;  // when null, `threshold` is used
  int threshold;
  int* last_change;  // the highest pass index that deleted a pixel; -1 before any
  std::uint32_t* buffer0;
  std::uint32_t* buffer1;
  int* passes;  // may be null
  Tiling tiling;
};

// A word of a row with its pixels' right (east) and left (west) neighbours: bit b of
// east is the pixel right of bit b of mid.
struct Shifted {
  std::uint32_t west;
  std::uint32_t mid;
  std::uint32_t east;
};

__host__ __device__ __forceinline__ Shifted shifted(std::uint32_t left, std::uint32_t mid, std::uint32_t right) {
  return {(mid << 1) | (left >> 31), mid, (mid >> 1) | (right << 31)};
}

__host__ __device__ __forceinline__ std::uint32_t majority(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
  return (a & b) | (c & (a ^ b));
}

// One Zhang-Suen sub-iteration (0 or 1) for the 32 pixels of centre.mid, bit-sliced: each
// bit of every value below is the same quantity for another pixel. A foreground pixel is
// deleted when its neighbours P2..P9 have exactly one 0->1 transition in cyclic order
// (A = 1), between 2 and 6 of them are foreground (B), and P2.P4.P6 = P4.P6.P8 = 0
// (sub-iteration 0) or P2.P4.P8 = P2.P6.P8 = 0 (1).
//
// Counted cheaply: with t_k = p_k ^ p_k+1 the transitions (either way) of the cycle p0..p7,
// A is half their number T. Full adders over t0..t2 and t3..t5 give sums that telescope to
// p0^p3 and p3^p6, and adding those to t6 leaves a sum of p0^p7 = t7, so T = 2 (c1 + c2 +
// c3 + t7) for the three carries, and A = 1 when exactly one of those four is set. Then the
// neighbours form one run of foreground and one of background, and 2 <= B <= 6 says that
// neither run is a single pixel: that no two transitions are adjacent.
template <int Sub>
__host__ __device__ __forceinline__ std::uint32_t zhang_suen_word(const Shifted& above, const Shifted& centre,
                                                                  const Shifted& below) {
  // P2..P9 in the paper's order: N, NE, E, SE, S, SW, W, NW.
  const std::uint32_t p0 = above.mid;
  const std::uint32_t p1 = above.east;
  const std::uint32_t p2 = centre.east;
  const std::uint32_t p3 = below.east;
  const std::uint32_t p4 = below.mid;
  const std::uint32_t p5 = below.west;
  const std::uint32_t p6 = centre.west;
  const std::uint32_t p7 = above.west;
  const std::uint32_t t0 = p0 ^ p1;
  const std::uint32_t t1 = p1 ^ p2;
  const std::uint32_t t2 = p2 ^ p3;
  const std::uint32_t t3 = p3 ^ p4;
  const std::uint32_t t4 = p4 ^ p5;
  const std::uint32_t t5 = p5 ^ p6;
  const std::uint32_t t6 = p6 ^ p7;
  const std::uint32_t t7 = p7 ^ p0;
  const std::uint32_t c1 = majority(t0, t1, t2);
  const std::uint32_t c2 = majority(t3, t4, t5);
  const std::uint32_t c3 = majority(p0 ^ p3, p3 ^ p6, t6);
  // Exactly one of c1, c2, c3, t7: at most one of the carries, and it or t7.
  const std::uint32_t one_rise = ~majority(c1, c2, c3) & (c1 ^ c2 ^ c3 ^ t7);
  const std::uint32_t adjacent =
      (t0 & t1) | (t1 & t2) | (t2 & t3) | (t3 & t4) | (t4 & t5) | (t5 & t6) | (t6 & t7) | (t7 & t0);
  std::uint32_t blocked = 0;
  if constexpr (Sub == 0)
    blocked = p2 & p4 & (p0 | p6);
  else
    blocked = p0 & p6 & (p2 | p4);
  return centre.mid & ~(one_rise & ~adjacent & ~blocked);
}

// Binarizing and packing, and unpacking, go by groups of 32 words of a row, one per warp,
// with lane l on pixel l of every 32: each load or store instruction then covers 32
// consecutive pixels, and a ballot (or a shuffle) turns pixels into words (or back).
struct WordGroup {
  int y;
  int first_word;
};

__device__ __forceinline__ WordGroup word_group(const Params& p, int group) {
  const int groups_per_row = (p.words_per_row + 31) / 32;
  return {group / groups_per_row, group % groups_per_row * 32};
}

// Lane l gets word first_word + l of row y (0 past the row): 1 where value > threshold.
__device__ __forceinline__ std::uint32_t pack_group(const Params& p, WordGroup g, int threshold, int lane) {
  const std::uint8_t* row = p.src + g.y * p.src_pitch;
  std::uint32_t mine = 0;
#pragma unroll
  for (int b = 0; b < 32; ++b) {
    const int x = 32 * (g.first_word + b) + lane;
    const std::uint32_t word = __ballot_sync(kAllLanes, x < p.width && static_cast<int>(row[x]) > threshold);
    if (lane == b) mine = word;
  }
  return mine;
}

// Writes the words that lanes hold (lane l: word first_word + l of row y) as 0/255 pixels.
__device__ __forceinline__ void unpack_group(const Params& p, WordGroup g, std::uint32_t mine, int lane) {
  std::uint8_t* row = p.dst + g.y * p.dst_pitch;
#pragma unroll
  for (int b = 0; b < 32; ++b) {
    const std::uint32_t word = __shfl_sync(kAllLanes, mine, b);
    const int x = 32 * (g.first_word + b) + lane;
    if (x < p.width) row[x] = ((word >> lane) & 1U) != 0 ? 255 : 0;
  }
}

// Where a thread is in the block's copy of a tile: rows [segment * Q, segment * Q + Q) of
// one column.
struct Strip {
  int column;         // 0 .. tile_words + 1; the own columns are 1 .. tile_words
  int columns;        // tile_words + 2
  int segment;
  int segments;
  bool active;        // segment < segments: whole warps are, or are not
  unsigned own_rows;  // bit i: row i of the run is an own word of the tile (own column too)
};

__device__ Strip strip_of_thread(const Tiling& t, int rows_per_thread) {
  Strip s{};
  s.columns = t.tile_words + 2;
  s.column = static_cast<int>(threadIdx.x) % s.columns;
  s.segment = static_cast<int>(threadIdx.x) / s.columns;
  s.segments = t.segments;
  s.active = s.segment < t.segments;
  const int halo = 2 * t.passes_per_round;
  if (s.column >= 1 && s.column <= t.tile_words)
    for (int i = 0; i < rows_per_thread; ++i) {
      const int row = s.segment * rows_per_thread + i;
      if (row >= halo && row < halo + t.tile_rows) s.own_rows |= 1U << i;
    }
  return s;
}

// `word` with its pixels' left and right neighbours, from the lanes holding the adjacent
// columns. The copy's end columns have none: the shuffle hands them their own word, which
// stands in as well as 0 would (those halo words go stale from their outer pixel either
// way), and saves two selects per word and sub-iteration. Every lane of the warp must call it.
__device__ __forceinline__ Shifted with_neighbours(std::uint32_t word, const Strip& s) {
  const std::uint32_t left = __shfl_up_sync(kAllLanes, word, 1, s.columns);
  const std::uint32_t right = __shfl_down_sync(kAllLanes, word, 1, s.columns);
  return shifted(left, word, right);
}

// Sub-iteration Sub on the block's copy of a tile, the run `v` of this thread included;
// whether it deleted a pixel of this thread's own words. `edges` (one per kind of
// sub-iteration, so that a thread can write the next one's while others still read this
// one's) passes the first and last row of every run to the runs above and below. Every
// thread of the block must call it.
template <int Sub, int Q>
__device__ bool sub_iteration(std::uint32_t (&v)[Q], const Strip& s, std::uint32_t (&edges)[2][kThreads]) {
  const int thread = static_cast<int>(threadIdx.x);
  if (s.active) {
    edges[0][thread] = v[0];
    edges[1][thread] = v[Q - 1];
  }
  __syncthreads();
  if (!s.active) return false;
  // The rows just above and below the run; the copy's top and bottom rows have none.
  const std::uint32_t above = s.segment > 0 ? edges[1][thread - s.columns] : 0U;
  const std::uint32_t below = s.segment + 1 < s.segments ? edges[0][thread + s.columns] : 0U;
  Shifted rows[Q + 2];
  rows[0] = with_neighbours(above, s);
#pragma unroll
  for (int i = 0; i < Q; ++i) rows[i + 1] = with_neighbours(v[i], s);
  rows[Q + 1] = with_neighbours(below, s);
  std::uint32_t deleted = 0;
#pragma unroll
  for (int i = 0; i < Q; ++i) {
    const std::uint32_t word = zhang_suen_word<Sub>(rows[i], rows[i + 1], rows[i + 2]);
    // Deletions only clear bits, so a word changed iff it differs.
    if (((s.own_rows >> i) & 1U) != 0) deleted |= word ^ v[i];
    v[i] = word;
  }
  return deleted != 0;
}

// Where a thread's words of a tile are in the image: its word column, and the row of its
// first word.
struct TilePlace {
  int x;
  int y_first;
};

template <int Q>
__device__ __forceinline__ TilePlace place_of(const Params& p, int tile, const Strip& s) {
  const Tiling& t = p.tiling;
  return {tile % t.tiles_across * t.tile_words - 1 + s.column,
          tile / t.tiles_across * t.tile_rows - 2 * t.passes_per_round + s.segment * Q};
}

// This thread's words of the block's copy of a tile, with its halo, from `in` (0 outside
// the image).
template <int Q>
__device__ __forceinline__ void load_tile(const Params& p, int tile, const std::uint32_t* in, const Strip& s,
                                          std::uint32_t (&v)[Q]) {
  const TilePlace at = place_of<Q>(p, tile, s);
#pragma unroll
  for (int i = 0; i < Q; ++i) {
    const int y = at.y_first + i;
    const bool inside = s.active && y >= 0 && y < p.height && at.x >= 0 && at.x < p.words_per_row;
    v[i] = inside ? __ldcg(in + static_cast<std::ptrdiff_t>(y) * p.words_per_row + at.x) : 0U;
  }
}

// One round on one tile loaded into `v` (load_tile): runs the K passes and writes its own
// words to `out`. Returns a mask with bit k set when pass k of the round deleted a pixel
// of this thread's own words. Every thread of the block must call it.
template <int Q>
__device__ unsigned run_tile(const Params& p, int tile, std::uint32_t (&v)[Q], std::uint32_t* out, const Strip& s,
                             std::uint32_t (&edges)[2][2][kThreads]) {
  const Tiling& t = p.tiling;
  unsigned changed = 0;
  for (int pass = 0; pass < t.passes_per_round; ++pass) {
    const bool first = sub_iteration<0>(v, s, edges[0]);
    const bool second = sub_iteration<1>(v, s, edges[1]);
    changed |= static_cast<unsigned>(first || second) << pass;
  }

  const TilePlace at = place_of<Q>(p, tile, s);
#pragma unroll
  for (int i = 0; i < Q; ++i) {
    const int y = at.y_first + i;
    if (((s.own_rows >> i) & 1U) != 0 && y < p.height && at.x < p.words_per_row)
      out[static_cast<std::ptrdiff_t>(y) * p.words_per_row + at.x] = v[i];
  }
  return changed;
}

// Launched cooperatively with every block resident: binarize and pack, then rounds until
// one ends with a pass that changed nothing (each ending in a grid barrier), then unpack.
// The buffers change between barriers, so they are read with __ldcg (L2, never a possibly
// stale L1 line) and never through the read-only path.
template <int Q>
__global__ void __launch_bounds__(kThreads, 1) thinning_kernel(const Params p) {
  __shared__ std::uint32_t s_edges[2][2][kThreads];
  __shared__ unsigned s_changed;
  const cg::grid_group grid = cg::this_grid();
  const Tiling& t = p.tiling;
  const int thread = static_cast<int>(threadIdx.x);
  const int global_thread = static_cast<int>(blockIdx.x) * kThreads + thread;
  const int threads = static_cast<int>(gridDim.x) * kThreads;
  const Strip strip = strip_of_thread(t, Q);
  if (thread == 0) s_changed = 0;

  // Binarize and pack. src is read only here and dst written only after the last barrier,
  // so they may be the same plane. The trip counts depend only on the warp (ballots).
  const int threshold = p.threshold_ptr != nullptr ? *p.threshold_ptr : p.threshold;
  const int lane = thread % 32;
  const int warp = global_thread / 32;
  const int warps = threads / 32;
  const int groups = p.height * ((p.words_per_row + 31) / 32);
  for (int group = warp; group < groups; group += warps) {
    const WordGroup g = word_group(p, group);
    const std::uint32_t word = pack_group(p, g, threshold, lane);
    if (g.first_word + lane < p.words_per_row) p.buffer0[g.y * p.words_per_row + g.first_word + lane] = word;
  }
  if (global_thread == 0) *p.last_change = -1;
  grid.sync();

  const int k = t.passes_per_round;
  const int first_tile = static_cast<int>(blockIdx.x);
  std::uint32_t v[Q];  // the words of the tile in work
  if (first_tile < t.tiles) load_tile<Q>(p, first_tile, p.buffer0, strip, v);
  int round = 0;
  int last_change = -1;
  for (;; ++round) {
    const std::uint32_t* in = (round & 1) != 0 ? p.buffer1 : p.buffer0;
    std::uint32_t* out = (round & 1) != 0 ? p.buffer0 : p.buffer1;
    unsigned changed = 0;
    for (int tile = first_tile; tile < t.tiles; tile += static_cast<int>(gridDim.x)) {
      if (tile != first_tile) load_tile<Q>(p, tile, in, strip, v);  // the first one is loaded
      changed |= run_tile<Q>(p, tile, v, out, strip, s_edges);
    }
    // One atomic per block; the barrier's release/acquire publishes it.
    changed = __reduce_or_sync(kAllLanes, changed);
    if (lane == 0 && changed != 0) atomicOr(&s_changed, changed);
    __syncthreads();
    if (thread == 0) {
      const unsigned mask = s_changed;
      s_changed = 0;  // every atomicOr of the next round comes after the grid barrier
      if (mask != 0) atomicMax(p.last_change, round * k + 31 - __clz(static_cast<int>(mask)));
    }
    grid.sync();
    // The next round's first tile is loaded before last_change is read, so that the two
    // trips to L2 overlap (it goes unused when this round converged).
    if (first_tile < t.tiles) load_tile<Q>(p, first_tile, out, strip, v);
    // Only later rounds raise it, and only when this one did not converge, so every
    // thread decides alike.
    last_change = __ldcg(p.last_change);
    if (last_change < round * k + k - 1) break;
  }

  // The round's output is the converged image.
  const std::uint32_t* image = (round & 1) != 0 ? p.buffer0 : p.buffer1;
  if (global_thread == 0 && p.passes != nullptr) *p.passes = last_change + 2;
  for (int group = warp; group < groups; group += warps) {
    const WordGroup g = word_group(p, group);
    const bool inside = g.first_word + lane < p.words_per_row;
    unpack_group(p, g, inside ? __ldcg(image + g.y * p.words_per_row + g.first_word + lane) : 0U, lane);
  }
}

// The kernel for each Q of kRowsPerThread, in that order.
using Kernel = void (*)(Params);
constexpr std::array<Kernel, 3> kKernels = {thinning_kernel<4>, thinning_kernel<8>, thinning_kernel<16>};
static_assert(kRowsPerThread == std::array<int, 3>{4, 8, 16});

Kernel kernel_for(const Tiling& t) {
  const auto q = std::find(kRowsPerThread.begin(), kRowsPerThread.end(), t.rows_per_thread) - kRowsPerThread.begin();
  return kKernels[static_cast<std::size_t>(q)];
}

// Multiprocessors of the current device, after checking that it can launch cooperative
// kernels. Cached per device: the pipeline calls this every frame.
int multiprocessors() {
  int device = 0;
  FP_CUDA_CHECK(cudaGetDevice(&device));
  static std::array<std::atomic<int>, 64> cache{};  // 0: not known yet
  const bool cacheable = device >= 0 && device < static_cast<int>(cache.size());
  if (cacheable) {
    const int known = cache[static_cast<std::size_t>(device)].load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  int cooperative = 0;
  FP_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  if (cooperative == 0)
    throw std::runtime_error("thinning: cuda:" + std::to_string(device) + " cannot launch cooperative kernels");
  int count = 0;
  FP_CUDA_CHECK(cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device));
  for (const Kernel kernel : kKernels) {
    int per_multiprocessor = 0;
    FP_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_multiprocessor, kernel, kThreads, 0));
    if (per_multiprocessor < 1 || count < 1)
      throw std::runtime_error("thinning_kernel: no block fits on cuda:" + std::to_string(device));
  }
  if (cacheable) cache[static_cast<std::size_t>(device)].store(count, std::memory_order_relaxed);
  return count;
}

ThinningTiling public_tiling(const Tiling& t) { return {t.passes_per_round, t.tile_words, t.rows_per_thread}; }

// The tiling `wanted` names, which must be one of all_tilings' for this image and device.
Tiling forced_tiling(int words_per_row, int height, int blocks, const ThinningTiling& wanted) {
  std::optional<Tiling> found;
  for_each_tiling(words_per_row, height, blocks, [&](const Tiling& t) {
    if (public_tiling(t) == wanted) found = t;
  });
  if (!found) throw std::invalid_argument("thinning: no such tiling for this image and device");
  return *found;
}

void launch(ConstImageU8 src, ImageU8 dst, const int* threshold_ptr, int threshold, void* workspace,
            cudaStream_t stream, int* passes, const ThinningTiling* forced = nullptr) {
  if (src.width != dst.width || src.height != dst.height)
    throw std::invalid_argument("thinning: source and destination sizes differ");
  if (workspace == nullptr) throw std::invalid_argument("thinning: no workspace");
  if (reinterpret_cast<std::uintptr_t>(workspace) % alignof(std::uint32_t) != 0)
    throw std::invalid_argument("thinning: workspace not 4-byte aligned");

  // An empty image runs as 0x0 (one pass that finds nothing, as on the CPU) and is never read.
  const bool empty = src.empty();
  const int width = empty ? 0 : src.width;
  const int height = empty ? 0 : src.height;
  const Geometry g = geometry_for(width, height);
  auto* words = reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(workspace) + kCounterBytes);

  // One block per multiprocessor (no more than there are tiles).
  const int sms = multiprocessors();
  const Tiling tiling = forced != nullptr ? forced_tiling(g.words_per_row, height, sms, *forced)
                                          : choose_tiling(g.words_per_row, height, sms);
  const int blocks = std::max(1, std::min(sms, tiling.tiles));

  Params params{};
  params.src = src.data;
  params.src_pitch = src.pitch;
  params.dst = dst.data;
  params.dst_pitch = dst.pitch;
  params.width = width;
  params.height = height;
  params.words_per_row = g.words_per_row;
  params.threshold_ptr = threshold_ptr;
  params.threshold = threshold;
  params.last_change = static_cast<int*>(workspace);
  params.buffer0 = words;
  params.buffer1 = words + g.buffer_words;
  params.passes = passes;
  params.tiling = tiling;

  cudaLaunchAttribute cooperative{};
  cooperative.id = cudaLaunchAttributeCooperative;
  cooperative.val.cooperative = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &cooperative;
  config.numAttrs = 1;
  const cudaError_t status = cudaLaunchKernelEx(&config, kernel_for(tiling), params);
  check_launch("thinning_kernel");  // also clears the error state
  check(status, "thinning_kernel");
}

}  // namespace

std::size_t thinning_workspace_bytes(int width, int height) {
  return kCounterBytes + 2 * geometry_for(width, height).buffer_words * sizeof(std::uint32_t);
}

void thinning(ConstImageU8 src, ImageU8 dst, int threshold, void* workspace, cudaStream_t stream, int* passes) {
  launch(src, dst, nullptr, threshold, workspace, stream, passes);
}

std::vector<ThinningTiling> thinning_tilings(int width, int height) {
  const int sms = multiprocessors();
  const Geometry g = geometry_for(width, height);
  std::vector<ThinningTiling> tilings;
  const ThinningTiling chosen = public_tiling(choose_tiling(g.words_per_row, height, sms));
  tilings.push_back(chosen);
  for_each_tiling(g.words_per_row, height, sms, [&](const Tiling& t) {
    if (public_tiling(t) != chosen) tilings.push_back(public_tiling(t));
  });
  return tilings;
}

void thinning(ConstImageU8 src, ImageU8 dst, int threshold, void* workspace, cudaStream_t stream,
              const ThinningTiling& tiling, int* passes) {
  if (src.empty()) throw std::invalid_argument("thinning: a tiling is for an image, not an empty one");
  launch(src, dst, nullptr, threshold, workspace, stream, passes, &tiling);
}

void thinning(ConstImageU8 src, ImageU8 dst, const int* threshold, void* workspace, cudaStream_t stream,
              int* passes) {
  if (threshold == nullptr) throw std::invalid_argument("thinning: null threshold pointer");
  launch(src, dst, threshold, 0, workspace, stream, passes);
}

}  // namespace fp::cuda
