#include "cpu/thinning.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stdexcept>
#include <vector>

#include "cpu/parallel.hpp"
#include "cpu/scratch.hpp"

namespace fp::cpu {
namespace {

// The neighbours in Zhang and Suen's order P2..P9: N, NE, E, SE, S, SW, W, NW. Bit k of a
// neighbourhood mask is P(k+2).
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

// A pixel's 3x3 window is read as a 9-bit code, row by row from the top, each row left to
// right (bit 4 is the pixel itself), because that is what three row loads give cheaply.
// kCodeBitToP[b] is the bit of the Zhang-Suen mask that code bit b becomes (-1: the pixel).
constexpr int kCodeBitToP[9] = {7, 0, 1, 6, -1, 2, 5, 4, 3};  // NW N NE, W . E, SW S SE
constexpr unsigned kCentre = 1U << 4;

constexpr unsigned mask_of_code(unsigned code) {
  unsigned mask = 0;
  for (int b = 0; b < 9; ++b)
    if (kCodeBitToP[b] >= 0 && ((code >> b) & 1U) != 0) mask |= 1U << kCodeBitToP[b];
  return mask;
}

// The whole rule is a function of the window, so it is looked up rather than evaluated: per
// code, bit k is set when sub-iteration k deletes the pixel (a background pixel never is).
constexpr std::array<std::uint8_t, 512> make_deletable_table() {
  std::array<std::uint8_t, 512> table{};
  for (unsigned code = 0; code < 512; ++code) {
    if ((code & kCentre) == 0) continue;
    const unsigned mask = mask_of_code(code);
    table[code] = static_cast<std::uint8_t>((deletable_mask(mask, 0) ? 1U : 0U) | (deletable_mask(mask, 1) ? 2U : 0U));
  }
  return table;
}
constexpr auto kDeletable = make_deletable_table();

// Reading a row's three pixels around x is one 4-byte load, and 8 pixels are one 8-byte load,
// so the buffers have this many bytes after the last pixel.
constexpr std::size_t kTail = 8;

// The 3x3 window around pixel i of a framed 0/1 plane as a code for kDeletable.
//
// These helpers, and the loops that call them, take the planes as locals rather than members:
// a byte store may alias anything, so members would be reloaded after every store.
unsigned window_code(const std::uint8_t* pixels, std::uint32_t stride, std::uint32_t i) {
  // With three 0/1 bytes b0, b1, b2 (and anything in the fourth) in a little-endian word,
  // multiplying by 1 + 2^7 + 2^14 puts b0, b1, b2 on bits 14, 15, 16, where no other product
  // bit and no carry lands.
  auto three = [pixels](std::uint32_t at) {
    std::uint32_t word;
    std::memcpy(&word, pixels + at, sizeof word);
    return ((word * 0x4081U) >> 14) & 7U;
  };
  return three(i - stride - 1) | (three(i - 1) << 3) | (three(i + stride - 1) << 6);
}

// Whether any of the 8 pixels from i on is foreground with a background neighbour.
bool any_on_contour(const std::uint8_t* pixels, std::uint32_t stride, std::uint32_t i) {
  auto eight = [pixels](std::uint32_t at) {
    std::uint64_t word;  // 8 pixels, one byte each
    std::memcpy(&word, pixels + at, sizeof word);
    return word;
  };
  const std::uint32_t s = stride;
  const std::uint64_t all_on = eight(i - s - 1) & eight(i - s) & eight(i - s + 1) & eight(i - 1) & eight(i + 1) &
                               eight(i + s - 1) & eight(i + s) & eight(i + s + 1);
  return (eight(i) & ~all_on) != 0;
}

// Splits n items into `parts` nearly equal ranges; the start of range `part`.
std::size_t part_start(std::size_t n, int part, int parts) {
  return n * static_cast<std::size_t>(part) / static_cast<std::size_t>(parts);
}

// What is known of a pixel, one byte per pixel beside the pixels themselves (so that writing
// it never stalls the word loads of window_code):
//  - kOn: the pixel itself, so that the bookkeeping of a neighbour needs one load;
//  - bit 1 + k: sub-iteration kind k would delete it in the image as it is now;
//  - bit 3 + k: it is on the pending list of kind k;
//  - kTouched: it is on the list of pixels whose neighbourhood the current sub-iteration changed.
constexpr unsigned kOn = 1;
constexpr unsigned deletable_bits(unsigned kinds) { return kinds << 1; }
constexpr unsigned listed_bits(unsigned kinds) { return kinds << 3; }
constexpr unsigned kListed = listed_bits(3);
constexpr unsigned kTouched = 1U << 5;

// For the callers without a scratch of their own: one per thread, so that a caller thinning
// frame after frame on one thread still allocates only on its first.
ThinningScratch& thread_scratch() {
  thread_local ThinningScratch instance;
  return instance;
}

// The image with a one-pixel frame of background, so that neighbours outside the image need
// no bounds checks, and what is known of each pixel's fate.
//
// A pixel's fate in a sub-iteration depends only on its 8 neighbours, and pixels only ever
// turn to background. So each pixel's deletability (for both kinds of sub-iteration) is
// evaluated once at the start and then again only when a neighbour has been deleted, right
// after the sub-iteration that deleted it; it is then exact for the image at the start of
// the next sub-iteration, which is what Zhang-Suen decides on. Each kind keeps a list of the
// pixels that were deletable for it when last evaluated (some may not be any more), so a
// sub-iteration reads the pixels of its list, deletes those marked deletable, and evaluates
// their neighbours. On a thick shape that is peeled for many passes this is the moving
// contour, instead of every pixel of the image.
//
// The lists are filled without branches (the entry is always written, the length grows by 0
// or 1), since whether a pixel of a noisy image goes on a list is unpredictable.
class Thinner {
 public:
  template <class IsForeground>
  Thinner(ConstImageU8 image, IsForeground is_foreground, ThinningScratch& scratch)
      : width_(image.width),
        height_(image.height),
        stride_(static_cast<std::uint32_t>(image.width) + 2),
        band_counts_(scratch.band_counts) {
    const std::size_t framed = static_cast<std::size_t>(stride_) * (static_cast<std::size_t>(height_) + 2);
    // + 1: a list of every pixel still writes one entry past its end.
    const std::size_t size = framed + kTail + 1;
    if (size > std::numeric_limits<std::uint32_t>::max()) throw std::invalid_argument("zhang_suen: image too large");
    scratch.reserve(size);
    pixels_ = scratch.pixels.get();
    state_ = scratch.state.get();
    pending_[0] = scratch.pending[0].get();
    pending_[1] = scratch.pending[1].get();
    doomed_ = scratch.doomed.get();
    touched_ = scratch.touched.get();

    // The frame and the tail are background; their state is kept (as 0) too, so that the
    // branch-free updates read no uninitialized byte.
    std::memset(pixels_, 0, index(0, 0));
    std::memset(state_, 0, index(0, 0));
    const std::size_t bottom = index(0, height_) - 1;
    std::memset(pixels_ + bottom, 0, size - bottom);
    std::memset(state_ + bottom, 0, size - bottom);
    parallel_rows(height_, [&](int begin, int end) {
      const int width = width_;  // locals, for the reason given at window_code
      const IsForeground foreground = is_foreground;
      for (int y = begin; y < end; ++y) {
        const std::uint8_t* in = image.row(y);
        std::uint8_t* out = pixels_ + index(0, y);
        std::uint8_t* state = state_ + index(0, y);
        for (int x = 0; x < width; ++x) out[x] = foreground(in[x]) ? 1 : 0;
        out[width] = 0;  // the right frame pixel of this row and the left one of the next
        out[width + 1] = 0;
        state[width] = 0;
        state[width + 1] = 0;
      }
    });
    list_initially_deletable();
  }

  // One sub-iteration of the given kind (0: first, 1: second); returns whether it deleted
  // anything.
  bool sub_iteration(int which) {
    std::uint8_t* const pixels = pixels_;
    std::uint8_t* const state = state_;
    const std::uint32_t stride = stride_;

    // The deletions, as marked for the image at the start of this sub-iteration; the list is
    // used up.
    const std::uint32_t* const list = pending_[which];
    const std::size_t listed = pending_size_[which];
    pending_size_[which] = 0;
    std::uint32_t* const doomed = doomed_;
    const auto unlist = static_cast<std::uint8_t>(~listed_bits(1U << which));
    std::size_t n_doomed = 0;
    for (std::size_t k = 0; k < listed; ++k) {
      const std::uint32_t i = list[k];
      const unsigned st = state[i];
      state[i] = static_cast<std::uint8_t>(st & unlist);
      doomed[n_doomed] = i;
      n_doomed += (st >> (1 + which)) & 1U;
    }
    if (n_doomed == 0) return false;
    // A deleted pixel may still be on the other kind's list; its cleared state skips it there.
    for (std::size_t k = 0; k < n_doomed; ++k) {
      pixels[doomed[k]] = 0;
      state[doomed[k]] = 0;
    }

    // The foreground neighbours of the deleted pixels, each once.
    std::uint32_t* const touched = touched_;
    std::size_t n_touched = 0;
    const std::ptrdiff_t s = stride;
    const std::ptrdiff_t offsets[8] = {-s - 1, -s, -s + 1, -1, 1, s - 1, s, s + 1};
    for (std::size_t k = 0; k < n_doomed; ++k)
      for (const std::ptrdiff_t offset : offsets) {
        const auto j = static_cast<std::uint32_t>(static_cast<std::ptrdiff_t>(doomed[k]) + offset);
        const unsigned st = state[j];
        touched[n_touched] = j;
        n_touched += (st & (kOn | kTouched)) == kOn ? 1 : 0;
        state[j] = static_cast<std::uint8_t>(st | ((st & kOn) << 5));
      }

    // Their deletability in the image as it is now, i.e. at the start of the next
    // sub-iteration; those deletable go on the lists they are not on yet.
    std::uint32_t* const first = pending_[0];
    std::uint32_t* const second = pending_[1];
    std::size_t n0 = pending_size_[0];
    std::size_t n1 = pending_size_[1];
    for (std::size_t k = 0; k < n_touched; ++k) {
      const std::uint32_t j = touched[k];
      const unsigned st = state[j];
      const unsigned kinds = kDeletable[window_code(pixels, stride, j)];
      const unsigned fresh = kinds & ~(st >> 3);
      first[n0] = j;
      n0 += fresh & 1U;
      second[n1] = j;
      n1 += (fresh >> 1) & 1U;
      state[j] = static_cast<std::uint8_t>((st & (kOn | kListed)) | listed_bits(kinds) | deletable_bits(kinds));
    }
    pending_size_[0] = n0;
    pending_size_[1] = n1;
    return true;
  }

  // Writes `one` for foreground and 0 for background.
  void write_back(ImageU8 image, std::uint8_t one) const {
    parallel_rows(height_, [&, one](int begin, int end) {
      const int width = width_;  // locals, for the reason given at window_code
      const std::uint8_t value = one;
      for (int y = begin; y < end; ++y) {
        const std::uint8_t* in = pixels_ + index(0, y);
        std::uint8_t* out = image.row(y);
        for (int x = 0; x < width; ++x) out[x] = in[x] != 0 ? value : 0;
      }
    });
  }

 private:
  std::uint32_t index(int x, int y) const {
    return static_cast<std::uint32_t>(y + 1) * stride_ + static_cast<std::uint32_t>(x + 1);
  }

  // Evaluates every pixel and lists, for each kind of sub-iteration, those it would delete.
  // Bands of rows are scanned in parallel; band b writes its entries from the list position
  // of its first pixel on (it cannot have more entries than pixels), and the bands are then
  // moved together in order.
  void list_initially_deletable() {
    const int bands = std::min(height_, 4 * worker_count());
    std::array<std::size_t, 2>* const counts = at_least(band_counts_, static_cast<std::size_t>(bands));
    const auto pixels_per_row = static_cast<std::size_t>(width_);
    auto band_rows = [&](int band) { return part_start(static_cast<std::size_t>(height_), band, bands); };
    parallel_rows(bands, [&](int first_band, int last_band) {
      const std::uint8_t* const pixels = pixels_;
      std::uint8_t* const state = state_;
      const std::uint32_t stride = stride_;
      for (int band = first_band; band < last_band; ++band) {
        const std::size_t begin = band_rows(band);
        const std::size_t end = band_rows(band + 1);
        std::uint32_t* first = pending_[0] + begin * pixels_per_row;
        std::uint32_t* second = pending_[1] + begin * pixels_per_row;
        std::size_t n0 = 0;
        std::size_t n1 = 0;
        auto evaluate = [&](std::uint32_t i) {
          const unsigned kinds = kDeletable[window_code(pixels, stride, i)];
          first[n0] = i;
          n0 += kinds & 1U;
          second[n1] = i;
          n1 += kinds >> 1;
          state[i] = static_cast<std::uint8_t>(pixels[i] | listed_bits(kinds) | deletable_bits(kinds));
        };
        for (std::size_t y = begin; y < end; ++y) {
          std::uint32_t i = index(0, static_cast<int>(y));
          const std::uint32_t stop = i + static_cast<std::uint32_t>(width_);
          // Only a foreground pixel with a background neighbour can be deletable; a group of
          // 8 pixels without one, the inside of a shape or the background, is passed over
          // at once.
          for (; i + 8 <= stop; i += 8) {
            if (any_on_contour(pixels, stride, i))
              for (std::uint32_t k = i; k < i + 8; ++k) evaluate(k);
            else
              std::memcpy(state + i, pixels + i, 8);
          }
          for (; i < stop; ++i) evaluate(i);
        }
        counts[band] = {n0, n1};
      }
    });
    for (int kind = 0; kind < 2; ++kind) {
      std::uint32_t* const list = pending_[kind];
      std::size_t total = 0;
      for (int band = 0; band < bands; ++band) {
        const std::size_t n = counts[band][static_cast<std::size_t>(kind)];
        std::memmove(list + total, list + band_rows(band) * pixels_per_row, n * sizeof(std::uint32_t));
        total += n;
      }
      pending_size_[kind] = total;
    }
  }

  int width_;
  int height_;
  std::uint32_t stride_;
  std::uint8_t* pixels_ = nullptr;
  std::uint8_t* state_ = nullptr;
  std::uint32_t* pending_[2] = {nullptr, nullptr};
  std::size_t pending_size_[2] = {0, 0};
  std::uint32_t* doomed_ = nullptr;
  std::uint32_t* touched_ = nullptr;
  std::vector<std::array<std::size_t, 2>>& band_counts_;
};

// Runs pairs of sub-iterations until a pair deletes nothing; returns the pairs run.
int thin_to_convergence(Thinner& thinner) {
  int passes = 0;
  for (;;) {
    ++passes;
    const bool first = thinner.sub_iteration(0);
    const bool second = thinner.sub_iteration(1);
    if (!first && !second) return passes;
  }
}

void check_sizes(ConstImageU8 src, ImageU8 dst) {
  if (src.width != dst.width || src.height != dst.height)
    throw std::invalid_argument("binarize: source and destination sizes differ");
}

}  // namespace

void ThinningScratch::reserve(std::size_t size) {
  if (size <= capacity) return;
  // The old blocks go before the new ones come; until all are in, the scratch counts as empty
  // (so that one failing to come leaves a scratch that reserves again).
  pixels.reset();
  state.reset();
  for (auto& list : pending) list.reset();
  doomed.reset();
  touched.reset();
  capacity = 0;
  pixels = std::make_unique_for_overwrite<std::uint8_t[]>(size);
  state = std::make_unique_for_overwrite<std::uint8_t[]>(size);
  for (auto& list : pending) list = std::make_unique_for_overwrite<std::uint32_t[]>(size);
  doomed = std::make_unique_for_overwrite<std::uint32_t[]>(size);
  touched = std::make_unique_for_overwrite<std::uint32_t[]>(size);
  capacity = size;
}

void binarize(ConstImageU8 src, ImageU8 dst, int threshold) {
  check_sizes(src, dst);
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
  Thinner thinner(image, [](std::uint8_t value) { return value != 0; }, thread_scratch());
  const int passes = thin_to_convergence(thinner);
  thinner.write_back(image, 1);
  return passes;
}

int thinning(ConstImageU8 src, ImageU8 dst, int threshold, ThinningScratch& scratch) {
  check_sizes(src, dst);
  if (src.empty()) return 1;  // as zhang_suen on an empty plane
  // Binarizing straight into the framed copy saves two passes over dst. The whole source is
  // read before dst is written, so the two may be one plane.
  Thinner thinner(src, [threshold](std::uint8_t value) { return static_cast<int>(value) > threshold; }, scratch);
  const int passes = thin_to_convergence(thinner);
  thinner.write_back(dst, 255);
  return passes;
}

int thinning(ConstImageU8 src, ImageU8 dst, int threshold) {
  return thinning(src, dst, threshold, thread_scratch());
}

}  // namespace fp::cpu
