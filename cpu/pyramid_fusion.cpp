#include "cpu/pyramid_fusion.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "cpu/parallel.hpp"
#include "cpu/scratch.hpp"

namespace fp::cpu {
namespace {

// One float plane of a pyramid, tightly packed, in a buffer of the scratch. The buffers keep
// what the last call left in them, since every pixel is written before it is read.
struct Plane {
  int w = 0;
  int h = 0;
  float* px = nullptr;

  float* row(int y) const { return px + static_cast<std::ptrdiff_t>(y) * w; }
};

// A w x h plane in `buffer`.
Plane plane_in(std::vector<float>& buffer, int w, int h) {
  return {w, h, at_least(buffer, static_cast<std::size_t>(w) * static_cast<std::size_t>(h))};
}

// What passes use beside the pyramids: the half-done plane of a reduce or an expand (one at a
// time), and a row per worker, each a whole number of cache lines so that no two workers write
// to one line. The rows are sized here, before any worker starts.
class Temporaries {
 public:
  Temporaries(PyramidFusionScratch& scratch, int width)
      : across_(scratch.across), row_stride_(whole_cache_lines<float>(static_cast<std::size_t>(width))) {
    rows_ = at_least(scratch.rows, row_stride_ * static_cast<std::size_t>(worker_count()));
  }

  Plane across(int w, int h) { return plane_in(across_, w, h); }
  float* row(int worker) const { return rows_ + row_stride_ * static_cast<std::size_t>(worker); }

 private:
  std::vector<float>& across_;
  std::size_t row_stride_;
  float* rows_ = nullptr;
};

// A Laplacian pyramid whose level i is a plane in buffers[i]: level 0 is w x h, and each level
// is the one below halved, rounded up.
class Pyramid {
 public:
  Pyramid(std::vector<std::vector<float>>& buffers, int levels, int w, int h) : buffers_(buffers), w_(w), h_(h) {
    at_least(buffers_, static_cast<std::size_t>(levels));
  }

  Plane level(int i) const {
    int w = w_;
    int h = h_;
    for (int j = 0; j < i; ++j) {
      w = (w + 1) / 2;
      h = (h + 1) / 2;
    }
    return plane_in(buffer(i), w, h);
  }
  std::vector<float>& buffer(int i) const { return buffers_[static_cast<std::size_t>(i)]; }

 private:
  std::vector<std::vector<float>>& buffers_;
  int w_;
  int h_;
};

int clamp_index(int i, int n) { return std::clamp(i, 0, n - 1); }

// Below this many pixels a pass is done on the calling thread: handing it to the pool costs
// more than the pass (the coarse levels are small, and there are a dozen passes per level).
constexpr long long kParallelPixels = 32768;

// body(worker, begin, end) as parallel_rows_on_workers calls it; on the calling thread the
// whole pass is worker 0's.
template <class Body>
void for_rows(int rows, int width, const Body& body) {
  if (static_cast<long long>(rows) * width < kParallelPixels)
    body(0, 0, rows);
  else
    parallel_rows_on_workers(rows, body);
}

// Each pixel is computed with the same float operations in the same order whether a pass
// stores its result in a plane or hands it straight to the next one: passes are merged only
// where one consumes the other's pixel directly, and every value is rounded to float once,
// as if stored. So the merging does not change a bit of the result. The borders are split
// off so that the inner loops need no clamping and are vectorized.

// The binomial taps are applied unnormalized and the 1/256 of both passes at the end, so the
// sums of a constant plane stay exact and a flat image passes through unchanged.
inline float binomial(float a, float b, float c, float d, float e) { return a + 4.0f * b + 6.0f * c + 4.0f * d + e; }

// Blurs one row of w pixels along x at the even columns, into cw = (w+1)/2 values.
template <class T>
void reduce_row(const T* in, int w, float* out) {
  const int cw = (w + 1) / 2;
  auto clamped = [in, w](int cx) {
    const int x = 2 * cx;
    return binomial(static_cast<float>(in[clamp_index(x - 2, w)]), static_cast<float>(in[clamp_index(x - 1, w)]),
                    static_cast<float>(in[x]), static_cast<float>(in[clamp_index(x + 1, w)]),
                    static_cast<float>(in[clamp_index(x + 2, w)]));
  };
  // Columns 2cx-2 .. 2cx+2 are all inside for 1 <= cx <= (w-3)/2.
  const int inner_end = std::max(1, (w - 1) / 2);
  int cx = 0;
  for (; cx < std::min(1, cw); ++cx) out[cx] = clamped(cx);
  for (; cx < inner_end; ++cx) {
    const T* p = in + 2 * cx - 2;
    out[cx] = binomial(static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2]),
                       static_cast<float>(p[3]), static_cast<float>(p[4]));
  }
  for (; cx < cw; ++cx) out[cx] = clamped(cx);
}

// reduce(G) of a w x h plane whose rows row(y) hold T (uint8_t or float), into `coarse`, a
// (w+1)/2 x (h+1)/2 plane.
template <class T, class RowOf>
void reduce(int w, int h, const RowOf& row, const Plane& coarse, Temporaries& temps) {
  const int cw = (w + 1) / 2;
  const int ch = (h + 1) / 2;
  const Plane across = temps.across(cw, h);  // blurred along x at the even columns
  for_rows(h, w, [&](int, int begin, int end) {
    for (int y = begin; y < end; ++y) reduce_row<T>(row(y), w, across.row(y));
  });
  for_rows(ch, cw, [&](int, int begin, int end) {
    for (int cy = begin; cy < end; ++cy) {
      const int y = 2 * cy;
      const float* r0 = across.row(clamp_index(y - 2, h));
      const float* r1 = across.row(clamp_index(y - 1, h));
      const float* r2 = across.row(y);
      const float* r3 = across.row(clamp_index(y + 1, h));
      const float* r4 = across.row(clamp_index(y + 2, h));
      float* out = coarse.row(cy);
      for (int cx = 0; cx < cw; ++cx) out[cx] = binomial(r0[cx], r1[cx], r2[cx], r3[cx], r4[cx]) * (1.0f / 256.0f);
    }
  });
}

void reduce(ConstImageU8 src, const Plane& coarse, Temporaries& temps) {
  reduce<std::uint8_t>(src.width, src.height, [src](int y) { return src.row(y); }, coarse, temps);
}

void reduce(const Plane& g, const Plane& coarse, Temporaries& temps) {
  reduce<float>(g.w, g.h, [&g](int y) { return static_cast<const float*>(g.row(y)); }, coarse, temps);
}

// The coarse samples and weights of fine coordinate i along one axis of n coarse samples:
// an even i takes (1/8, 6/8, 1/8) of c-1, c, c+1, an odd i (1/2, 1/2) of c, c+1 (c = i/2),
// clamped. Both passes add the terms in this order, so the result does not depend on the
// pass.
struct Taps {
  int index[3];
  bool even;
};

Taps expand_taps(int i, int n) {
  const int c = i / 2;
  if ((i & 1) == 0) return {{clamp_index(c - 1, n), clamp_index(c, n), clamp_index(c + 1, n)}, true};
  return {{clamp_index(c, n), clamp_index(c + 1, n), 0}, false};
}

inline float even_tap(float a, float b, float c) { return 0.125f * a + 0.75f * b + 0.125f * c; }
inline float odd_tap(float a, float b) { return 0.5f * a + 0.5f * b; }

// Upsamples one row of n coarse values to w fine ones.
void expand_row(const float* in, int n, float* out, int w) {
  auto clamped = [in, n](int x) {
    const Taps t = expand_taps(x, n);
    return t.even ? even_tap(in[t.index[0]], in[t.index[1]], in[t.index[2]]) : odd_tap(in[t.index[0]], in[t.index[1]]);
  };
  // Fine x = 2c and 2c+1 read c-1 .. c+1 unclamped for 1 <= c <= n-2 while 2c+1 < w.
  const int inner_end = std::max(1, std::min(n - 1, w / 2));
  int x = 0;
  for (; x < std::min(2, w); ++x) out[x] = clamped(x);
  for (int c = 1; c < inner_end; ++c, x += 2) {
    out[2 * c] = even_tap(in[c - 1], in[c], in[c + 1]);
    out[2 * c + 1] = odd_tap(in[c], in[c + 1]);
  }
  for (; x < w; ++x) out[x] = clamped(x);
}

// expand(coarse, w, h), with its vertical pass merged with what is done with the result:
// each finished row y goes to consume(y, up) in the worker's row (which stays in the L1
// cache) instead of a plane, and is used there at once.
template <class Consume>
void expand(const Plane& coarse, int w, int h, Temporaries& temps, const Consume& consume) {
  const Plane across = temps.across(w, coarse.h);  // rows first
  for_rows(coarse.h, w, [&](int, int begin, int end) {
    for (int cy = begin; cy < end; ++cy) expand_row(coarse.row(cy), coarse.w, across.row(cy), w);
  });
  for_rows(h, w, [&](int worker, int begin, int end) {
    float* u = temps.row(worker);
    for (int y = begin; y < end; ++y) {
      const Taps t = expand_taps(y, coarse.h);
      const float* r0 = across.row(t.index[0]);
      const float* r1 = across.row(t.index[1]);
      const float* r2 = across.row(t.index[2]);
      if (t.even)
        for (int x = 0; x < w; ++x) u[x] = even_tap(r0[x], r1[x], r2[x]);
      else
        for (int x = 0; x < w; ++x) u[x] = odd_tap(r0[x], r1[x]);
      consume(y, static_cast<const float*>(u));
    }
  });
}

// out[x] = round(clamp(v[x], 0, 255)) for a row; v is overwritten. Without a call to round():
// for the clamped c, t = (int)c is floor(c), c - t is exact and so is twice it, so
// t + (int)(2 (c - t)) is t + (c - t >= 0.5), round-half-up, which on values >= 0 is what
// round() (half away from zero) gives. std::min and std::max are std::clamp here (also on -0);
// the two steps are separate loops because GCC vectorizes each but not the two together.
void round_row(float* v, int w, std::uint8_t* out) {
  for (int x = 0; x < w; ++x) v[x] = std::min(std::max(v[x], 0.0f), 255.0f);
  for (int x = 0; x < w; ++x) {
    const int t = static_cast<int>(v[x]);
    out[x] = static_cast<std::uint8_t>(t + static_cast<int>(2.0f * (v[x] - static_cast<float>(t))));
  }
}

// The Laplacian pyramid of src (levels >= 2). The first level is computed from the 8-bit
// plane and the first expand directly, so that no float copy of src is made; each coarser
// Gaussian level turns into its Laplacian level in place once the finer one has used it.
void laplacian_pyramid(ConstImageU8 src, const Pyramid& pyramid, int levels, Temporaries& temps) {
  reduce(src, pyramid.level(1), temps);
  for (int i = 2; i < levels; ++i) reduce(pyramid.level(i - 1), pyramid.level(i), temps);
  const Plane base = pyramid.level(0);
  const int w = src.width;
  expand(pyramid.level(1), w, src.height, temps, [&](int y, const float* up) {
    const std::uint8_t* g = src.row(y);
    float* l = base.row(y);
    for (int x = 0; x < w; ++x) l[x] = static_cast<float>(g[x]) - up[x];
  });
  for (int i = 1; i + 1 < levels; ++i) {
    const Plane level = pyramid.level(i);
    expand(pyramid.level(i + 1), level.w, level.h, temps, [&](int y, const float* up) {
      float* l = level.row(y);
      for (int x = 0; x < level.w; ++x) l[x] = l[x] - up[x];
    });
  }
}

// Sum of squares over the 3x3 window around x of the rows r0, r1, r2 (already clamped),
// border replicate, always added in row-major order so that the comparison between the two
// inputs is reproducible.
inline float energy(const float* r0, const float* r1, const float* r2, int x, int left, int right) {
  float sum = 0.0f;
  for (const float* r : {r0, r1, r2}) {
    sum += r[left] * r[left];
    sum += r[x] * r[x];
    sum += r[right] * r[right];
  }
  return sum;
}

// max_energy's choice between the coefficients of a and b, times gain, into `fused`.
void fuse_max_energy(const Plane& a, const Plane& b, float gain, const Plane& fused) {
  const int w = a.w;
  for_rows(a.h, w, [&](int, int begin, int end) {
    for (int y = begin; y < end; ++y) {
      const int above = clamp_index(y - 1, a.h);
      const int below = clamp_index(y + 1, a.h);
      const float* a0 = a.row(above);
      const float* a1 = a.row(y);
      const float* a2 = a.row(below);
      const float* b0 = b.row(above);
      const float* b1 = b.row(y);
      const float* b2 = b.row(below);
      float* out = fused.row(y);
      auto pick = [&](int x, int left, int right) {
        const float ea = energy(a0, a1, a2, x, left, right);
        const float eb = energy(b0, b1, b2, x, left, right);
        return (ea >= eb ? a1[x] : b1[x]) * gain;
      };
      // The first and last columns replicate the border; the others need no clamping.
      out[0] = pick(0, 0, std::min(1, w - 1));
      for (int x = 1; x + 1 < w; ++x) out[x] = pick(x, x - 1, x + 1);
      if (w > 1) out[w - 1] = pick(w - 1, w - 2, w - 1);
    }
  });
}

// average or max_abs of a and b, times gain, into a.
void fuse_in_place(const Plane& a, const Plane& b, ops::FusionRule rule, float gain) {
  for_rows(a.h, a.w, [&](int, int begin, int end) {
    for (int y = begin; y < end; ++y) {
      float* pa = a.row(y);
      const float* pb = b.row(y);
      if (rule == ops::FusionRule::Average)
        for (int x = 0; x < a.w; ++x) pa[x] = (pa[x] + pb[x]) * 0.5f * gain;
      else
        for (int x = 0; x < a.w; ++x) pa[x] = (std::fabs(pa[x]) >= std::fabs(pb[x]) ? pa[x] : pb[x]) * gain;
    }
  });
}

// Fuses detail level `a` (in `level`, a's buffer) with b: a's buffer keeps the result.
void fuse_detail(std::vector<float>& level, const Plane& a, const Plane& b, ops::FusionRule rule, float gain,
                 std::vector<float>& spare) {
  if (rule != ops::FusionRule::MaxEnergy) {
    fuse_in_place(a, b, rule, gain);
    return;
  }
  // The energies need a's neighbours unchanged, so the result goes to the spare plane, which
  // then takes the level's place (and the level's buffer is the spare of the next frame).
  fuse_max_energy(a, b, gain, plane_in(spare, a.w, a.h));
  level.swap(spare);
}

// levels == 1: the base level alone, the inputs averaged (with the base's gain of 1), then
// rounded.
void average_inputs(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const Temporaries& temps) {
  const int w = dst.width;
  for_rows(dst.height, w, [&](int worker, int begin, int end) {
    float* v = temps.row(worker);
    for (int y = begin; y < end; ++y) {
      const std::uint8_t* pa = a.row(y);
      const std::uint8_t* pb = b.row(y);
      for (int x = 0; x < w; ++x) v[x] = (static_cast<float>(pa[x]) + static_cast<float>(pb[x])) * 0.5f * 1.0f;
      round_row(v, w, dst.row(y));
    }
  });
}

// collapse: R_{N-1} = F_{N-1}; R_i = F_i + expand(R_{i+1}), in place; the finest level goes
// straight to dst, rounded (its plane is scratch now).
void collapse(const Pyramid& fused, int levels, ImageU8 dst, Temporaries& temps) {
  for (int i = levels - 2; i >= 1; --i) {
    const Plane level = fused.level(i);
    expand(fused.level(i + 1), level.w, level.h, temps, [&](int y, const float* up) {
      float* f = level.row(y);
      for (int x = 0; x < level.w; ++x) f[x] = f[x] + up[x];
    });
  }
  const Plane finest = fused.level(0);
  const int w = dst.width;
  expand(fused.level(1), w, dst.height, temps, [&](int y, const float* up) {
    float* f = finest.row(y);
    for (int x = 0; x < w; ++x) f[x] = f[x] + up[x];
    round_row(f, w, dst.row(y));
  });
}

void check_sizes(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const ops::FusionParams& params) {
  if (a.width != b.width || a.height != b.height || a.width != dst.width || a.height != dst.height)
    throw std::invalid_argument("pyramid_fusion: the inputs and the output must have one size");
  if (params.levels < 1) throw std::invalid_argument("pyramid_fusion: levels must be >= 1");
}

}  // namespace

void pyramid_fusion(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const ops::FusionParams& params,
                    PyramidFusionScratch& scratch) {
  check_sizes(a, b, dst, params);
  if (a.empty()) return;
  const int levels = params.levels;
  Temporaries temps(scratch, dst.width);
  if (levels == 1) {
    average_inputs(a, b, dst, temps);
    return;
  }
  const Pyramid fused(scratch.first, levels, dst.width, dst.height);
  const Pyramid other(scratch.second, levels, dst.width, dst.height);
  laplacian_pyramid(a, fused, levels, temps);
  laplacian_pyramid(b, other, levels, temps);

  at_least(scratch.spare, static_cast<std::size_t>(levels));
  for (int i = 0; i + 1 < levels; ++i) {
    const auto level = static_cast<std::size_t>(i);
    const float gain = level < params.gain.size() ? params.gain[level] : 1.0f;
    fuse_detail(fused.buffer(i), fused.level(i), other.level(i), params.rule, gain, scratch.spare[level]);
  }
  fuse_in_place(fused.level(levels - 1), other.level(levels - 1), ops::FusionRule::Average, 1.0f);
  collapse(fused, levels, dst, temps);
}

void pyramid_fusion(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const ops::FusionParams& params) {
  // One per calling thread: a caller that fuses frame after frame without a scratch of its own
  // (tests, the CUDA twin's checks) still allocates only on its first frame.
  thread_local PyramidFusionScratch scratch;
  pyramid_fusion(a, b, dst, params, scratch);
}

}  // namespace fp::cpu
