#include "cpu/pyramid_fusion.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cpu/parallel.hpp"

namespace fp::cpu {
namespace {

// Float buffers kept from one call to the next on the calling thread. A pipeline fuses frames
// of one size over and over, and fresh blocks this large come from the kernel one page fault
// per page: that took a third of the time. The blocks are left uninitialized, since every
// pixel is written before it is read.
class BufferCache {
 public:
  struct Release {
    std::size_t capacity = 0;
    void operator()(float* block) const;
  };
  using Buffer = std::unique_ptr<float[], Release>;

  static Buffer take(std::size_t size) {
    auto& free = blocks();
    auto best = free.end();
    for (auto it = free.begin(); it != free.end(); ++it)
      if (it->capacity >= size && (best == free.end() || it->capacity < best->capacity)) best = it;
    if (best == free.end()) return Buffer(std::make_unique_for_overwrite<float[]>(size).release(), Release{size});
    Buffer buffer(best->block.release(), Release{best->capacity});
    free.erase(best);
    return buffer;
  }

 private:
  // Enough for both pyramids and the temporaries of a call at the 12 levels the stage allows.
  static constexpr std::size_t kMaxBlocks = 40;

  struct Block {
    std::size_t capacity;
    std::unique_ptr<float[]> block;
  };

  static std::vector<Block>& blocks() {
    thread_local std::vector<Block> free;
    return free;
  }
};

void BufferCache::Release::operator()(float* block) const {
  std::unique_ptr<float[]> owned(block);
  auto& free = BufferCache::blocks();
  if (free.size() < BufferCache::kMaxBlocks) free.push_back({capacity, std::move(owned)});
}

// One float plane of a pyramid, tightly packed.
struct Plane {
  int w = 0;
  int h = 0;
  BufferCache::Buffer px;

  Plane() = default;
  Plane(int width, int height)
      : w(width), h(height), px(BufferCache::take(static_cast<std::size_t>(width) * static_cast<std::size_t>(height))) {}
  float* row(int y) { return px.get() + static_cast<std::ptrdiff_t>(y) * w; }
  const float* row(int y) const { return px.get() + static_cast<std::ptrdiff_t>(y) * w; }
};

int clamp_index(int i, int n) { return std::clamp(i, 0, n - 1); }

Plane from_u8(ConstImageU8 src) {
  Plane plane(src.width, src.height);
  parallel_rows(src.height, [&](int begin, int end) {
    for (int y = begin; y < end; ++y) {
      const std::uint8_t* in = src.row(y);
      float* out = plane.row(y);
      for (int x = 0; x < src.width; ++x) out[x] = in[x];
    }
  });
  return plane;
}

// The binomial taps are applied unnormalized and the 1/256 of both passes at the end, so the
// sums of a constant plane stay exact and a flat image passes through unchanged.
Plane reduce(const Plane& g) {
  const int cw = (g.w + 1) / 2;
  const int ch = (g.h + 1) / 2;
  Plane across(cw, g.h);  // blurred along x at the even columns
  parallel_rows(g.h, [&](int begin, int end) {
    for (int y = begin; y < end; ++y) {
      const float* in = g.row(y);
      float* out = across.row(y);
      for (int cx = 0; cx < cw; ++cx) {
        const int x = 2 * cx;
        out[cx] = in[clamp_index(x - 2, g.w)] + 4.0f * in[clamp_index(x - 1, g.w)] + 6.0f * in[x] +
                  4.0f * in[clamp_index(x + 1, g.w)] + in[clamp_index(x + 2, g.w)];
      }
    }
  });
  Plane coarse(cw, ch);
  parallel_rows(ch, [&](int begin, int end) {
    for (int cy = begin; cy < end; ++cy) {
      const int y = 2 * cy;
      const float* r0 = across.row(clamp_index(y - 2, g.h));
      const float* r1 = across.row(clamp_index(y - 1, g.h));
      const float* r2 = across.row(y);
      const float* r3 = across.row(clamp_index(y + 1, g.h));
      const float* r4 = across.row(clamp_index(y + 2, g.h));
      float* out = coarse.row(cy);
      for (int cx = 0; cx < cw; ++cx)
        out[cx] = (r0[cx] + 4.0f * r1[cx] + 6.0f * r2[cx] + 4.0f * r3[cx] + r4[cx]) * (1.0f / 256.0f);
    }
  });
  return coarse;
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

Plane expand(const Plane& coarse, int w, int h) {
  Plane across(w, coarse.h);  // rows first
  parallel_rows(coarse.h, [&](int begin, int end) {
    for (int cy = begin; cy < end; ++cy) {
      const float* in = coarse.row(cy);
      float* out = across.row(cy);
      for (int x = 0; x < w; ++x) {
        const Taps t = expand_taps(x, coarse.w);
        out[x] = t.even ? 0.125f * in[t.index[0]] + 0.75f * in[t.index[1]] + 0.125f * in[t.index[2]]
                        : 0.5f * in[t.index[0]] + 0.5f * in[t.index[1]];
      }
    }
  });
  Plane fine(w, h);
  parallel_rows(h, [&](int begin, int end) {
    for (int y = begin; y < end; ++y) {
      const Taps t = expand_taps(y, coarse.h);
      const float* r0 = across.row(t.index[0]);
      const float* r1 = across.row(t.index[1]);
      const float* r2 = across.row(t.index[2]);
      float* out = fine.row(y);
      if (t.even)
        for (int x = 0; x < w; ++x) out[x] = 0.125f * r0[x] + 0.75f * r1[x] + 0.125f * r2[x];
      else
        for (int x = 0; x < w; ++x) out[x] = 0.5f * r0[x] + 0.5f * r1[x];
    }
  });
  return fine;
}

// Turns a Gaussian pyramid into its Laplacian pyramid in place.
void to_laplacian(std::vector<Plane>& pyramid) {
  for (std::size_t i = 0; i + 1 < pyramid.size(); ++i) {
    Plane& level = pyramid[i];
    const Plane up = expand(pyramid[i + 1], level.w, level.h);
    parallel_rows(level.h, [&](int begin, int end) {
      for (int y = begin; y < end; ++y) {
        float* l = level.row(y);
        const float* u = up.row(y);
        for (int x = 0; x < level.w; ++x) l[x] = l[x] - u[x];
      }
    });
  }
}

std::vector<Plane> laplacian_pyramid(ConstImageU8 src, int levels) {
  std::vector<Plane> pyramid;
  pyramid.reserve(static_cast<std::size_t>(levels));
  pyramid.push_back(from_u8(src));
  for (int i = 1; i < levels; ++i) pyramid.push_back(reduce(pyramid.back()));
  to_laplacian(pyramid);
  return pyramid;
}

// Sum of squares over the 3x3 window around x of the rows r0, r1, r2 (already clamped),
// border replicate, always added in row-major order so that the comparison between the two
// inputs is reproducible.
inline float energy(const float* r0, const float* r1, const float* r2, int x, int w) {
  const int left = clamp_index(x - 1, w);
  const int right = clamp_index(x + 1, w);
  float sum = 0.0f;
  for (const float* r : {r0, r1, r2}) {
    sum += r[left] * r[left];
    sum += r[x] * r[x];
    sum += r[right] * r[right];
  }
  return sum;
}

// Fuses detail level b into a (a keeps the result).
void fuse_detail(Plane& a, const Plane& b, FusionRule rule, float gain) {
  if (rule == FusionRule::MaxEnergy) {
    // The energies need a's neighbours unchanged, so the result goes to a new plane.
    Plane fused(a.w, a.h);
    parallel_rows(a.h, [&](int begin, int end) {
      for (int y = begin; y < end; ++y) {
        const int above = clamp_index(y - 1, a.h);
        const int below = clamp_index(y + 1, a.h);
        const float* pa = a.row(y);
        const float* pb = b.row(y);
        float* out = fused.row(y);
        for (int x = 0; x < a.w; ++x) {
          const float ea = energy(a.row(above), pa, a.row(below), x, a.w);
          const float eb = energy(b.row(above), pb, b.row(below), x, b.w);
          out[x] = (ea >= eb ? pa[x] : pb[x]) * gain;
        }
      }
    });
    a = std::move(fused);
    return;
  }
  parallel_rows(a.h, [&](int begin, int end) {
    for (int y = begin; y < end; ++y) {
      float* pa = a.row(y);
      const float* pb = b.row(y);
      for (int x = 0; x < a.w; ++x) {
        const float f = rule == FusionRule::Average ? (pa[x] + pb[x]) * 0.5f
                                                    : (std::fabs(pa[x]) >= std::fabs(pb[x]) ? pa[x] : pb[x]);
        pa[x] = f * gain;
      }
    }
  });
}

void check_sizes(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const FusionParams& params) {
  if (a.width != b.width || a.height != b.height || a.width != dst.width || a.height != dst.height)
    throw std::invalid_argument("pyramid_fusion: the inputs and the output must have one size");
  if (params.levels < 1) throw std::invalid_argument("pyramid_fusion: levels must be >= 1");
}

}  // namespace

void pyramid_fusion(ConstImageU8 a, ConstImageU8 b, ImageU8 dst, const FusionParams& params) {
  check_sizes(a, b, dst, params);
  if (a.empty()) return;
  const int levels = params.levels;
  std::vector<Plane> fused = laplacian_pyramid(a, levels);
  const std::vector<Plane> other = laplacian_pyramid(b, levels);

  for (int i = 0; i + 1 < levels; ++i) {
    const auto level = static_cast<std::size_t>(i);
    const float gain = level < params.gain.size() ? params.gain[level] : 1.0f;
    fuse_detail(fused[level], other[level], params.rule, gain);
  }
  fuse_detail(fused.back(), other.back(), FusionRule::Average, 1.0f);

  for (int i = levels - 2; i >= 0; --i) {
    Plane& level = fused[static_cast<std::size_t>(i)];
    const Plane up = expand(fused[static_cast<std::size_t>(i) + 1], level.w, level.h);
    parallel_rows(level.h, [&](int begin, int end) {
      for (int y = begin; y < end; ++y) {
        float* f = level.row(y);
        const float* u = up.row(y);
        for (int x = 0; x < level.w; ++x) f[x] = f[x] + u[x];
      }
    });
  }

  const Plane& result = fused.front();
  parallel_rows(dst.height, [&](int begin, int end) {
    for (int y = begin; y < end; ++y) {
      const float* in = result.row(y);
      std::uint8_t* out = dst.row(y);
      // round() is half away from zero, which on the clamped, non-negative values is the
      // documented round-half-up.
      for (int x = 0; x < dst.width; ++x) out[x] = static_cast<std::uint8_t>(std::round(std::clamp(in[x], 0.0f, 255.0f)));
    }
  });
}

}  // namespace fp::cpu
