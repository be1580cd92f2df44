#include "cpu/thinning.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "cpu/parallel.hpp"

namespace fp::cpu {
namespace {

// The neighbours in Zhang and Suen's order P2..P9: N, NE, E, SE, S, SW, W, NW. Bit k of a
// neighbourhood mask is P(k+2).
constexpr int kDx[8] = {0, 1, 1, 1, 0, -1, -1, -1};
constexpr int kDy[8] = {-1, -1, 0, 1, 1, 1, 0, -1};

constexpr bool deletable_mask(unsigned mask, int sub_iteration) {
  auto p = [mask](int k) { return (mask >> (k - 2)) & 1U; };  // p(2) .. p(9)
  int b = 0;
  int a = 0;
  for (int k = 2; k <= 9; ++k) {
    b += static_cast<int>(p(k));
    const int next = k == 9 ? 2 : k + 1;
    if (p(k) == 0 && p(next) == 1) ++a;
  }
  if (b < 2 || b > 6 || a != 1) return false;
  if (sub_iteration == 0) return p(2) * p(4) * p(6) == 0 && p(4) * p(6) * p(8) == 0;
  return p(2) * p(4) * p(8) == 0 && p(2) * p(6) * p(8) == 0;
}

// The whole rule is a function of the 8 neighbours, so it is looked up rather than evaluated.
constexpr std::array<std::array<bool, 256>, 2> make_deletable_table() {
  std::array<std::array<bool, 256>, 2> table{};
  for (int sub = 0; sub < 2; ++sub)
    for (unsigned mask = 0; mask < 256; ++mask) table[static_cast<std::size_t>(sub)][mask] = deletable_mask(mask, sub);
  return table;
}
constexpr auto kDeletable = make_deletable_table();

// The image with a one-pixel frame of background, so that neighbours outside the image need
// no bounds checks, and the list of pixels that could still be deleted.
class Thinner {
 public:
  explicit Thinner(ImageU8 image) : w_(image.width + 2), h_(image.height + 2) {
    const std::size_t size = static_cast<std::size_t>(w_) * static_cast<std::size_t>(h_);
    if (size > std::numeric_limits<std::uint32_t>::max()) throw std::invalid_argument("zhang_suen: image too large");
    pixels_.assign(size, 0);
    listed_.assign(size, 0);
    for (int k = 0; k < 8; ++k) offsets_[static_cast<std::size_t>(k)] = kDy[k] * w_ + kDx[k];
    for (int y = 0; y < image.height; ++y) {
      const std::uint8_t* row = image.row(y);
      for (int x = 0; x < image.width; ++x) pixels_[index(x, y)] = row[x] != 0 ? 1 : 0;
    }
    // A pixel whose 8 neighbours are all foreground has B = 8 and cannot be deleted until
    // one of them is, at which point it is listed; so only border pixels start listed.
    for (int y = 0; y < image.height; ++y)
      for (int x = 0; x < image.width; ++x) {
        const std::uint32_t i = index(x, y);
        if (pixels_[i] != 0 && neighbours(i) != 0xFFU) list(i);
      }
  }

  // One sub-iteration; returns whether it deleted anything.
  bool sub_iteration(int which) {
    const auto& deletable = kDeletable[static_cast<std::size_t>(which)];
    doomed_.clear();
    // Decide every deletion on the image as it was when the sub-iteration began.
    for (const std::uint32_t i : candidates_)
      if (deletable[neighbours(i)]) doomed_.push_back(i);
    if (doomed_.empty()) return false;
    for (const std::uint32_t i : doomed_) pixels_[i] = 0;
    for (const std::uint32_t i : doomed_)
      for (const std::ptrdiff_t offset : offsets_) {
        const auto j = static_cast<std::uint32_t>(static_cast<std::ptrdiff_t>(i) + offset);
        if (pixels_[j] != 0 && listed_[j] == 0) list(j);
      }
    std::size_t kept = 0;
    for (const std::uint32_t i : candidates_) {
      if (pixels_[i] != 0)
        candidates_[kept++] = i;
      else
        listed_[i] = 0;
    }
    candidates_.resize(kept);
    return true;
  }

  void write_back(ImageU8 image) const {
    for (int y = 0; y < image.height; ++y) {
      std::uint8_t* row = image.row(y);
      for (int x = 0; x < image.width; ++x) row[x] = pixels_[index(x, y)];
    }
  }

 private:
  std::uint32_t index(int x, int y) const {
    return static_cast<std::uint32_t>((y + 1) * static_cast<std::ptrdiff_t>(w_) + (x + 1));
  }

  unsigned neighbours(std::uint32_t i) const {
    unsigned mask = 0;
    for (int k = 0; k < 8; ++k)
      mask |= static_cast<unsigned>(pixels_[static_cast<std::size_t>(static_cast<std::ptrdiff_t>(i) +
                                                                     offsets_[static_cast<std::size_t>(k)])])
              << k;
    return mask;
  }

  void list(std::uint32_t i) {
    listed_[i] = 1;
    candidates_.push_back(i);
  }

  int w_;
  int h_;
  std::array<std::ptrdiff_t, 8> offsets_{};
  std::vector<std::uint8_t> pixels_;
  std::vector<std::uint8_t> listed_;
  std::vector<std::uint32_t> candidates_;
  std::vector<std::uint32_t> doomed_;
};

}  // namespace

void binarize(ConstImageU8 src, ImageU8 dst, int threshold) {
  if (src.width != dst.width || src.height != dst.height)
    throw std::invalid_argument("binarize: source and destination sizes differ");
  if (src.empty()) return;
  parallel_rows(src.height, [&](int begin, int end) {
    for (int y = begin; y < end; ++y) {
      const std::uint8_t* in = src.row(y);
      std::uint8_t* out = dst.row(y);
      for (int x = 0; x < src.width; ++x) out[x] = static_cast<int>(in[x]) > threshold ? 1 : 0;
    }
  });
}

int zhang_suen(ImageU8 image) {
  if (image.empty()) return 1;  // one pass that finds nothing to delete
  Thinner thinner(image);
  int passes = 0;
  for (;;) {
    ++passes;
    const bool first = thinner.sub_iteration(0);
    const bool second = thinner.sub_iteration(1);
    if (!first && !second) break;
  }
  thinner.write_back(image);
  return passes;
}

int thinning(ConstImageU8 src, ImageU8 dst, int threshold) {
  binarize(src, dst, threshold);
  const int passes = zhang_suen(dst);
  for (int y = 0; y < dst.height; ++y) {
    std::uint8_t* row = dst.row(y);
    for (int x = 0; x < dst.width; ++x) row[x] = row[x] != 0 ? 255 : 0;
  }
  return passes;
}

}  // namespace fp::cpu
