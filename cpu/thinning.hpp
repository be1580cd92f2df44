// thinning on the CPU: binarize, then Zhang-Suen thinning to convergence; output 0/255.
//
// Binarization: a pixel is foreground when its value is > threshold (so an Otsu threshold
// t puts class 1, (t, 255], in the foreground). Pixels outside the image count as
// background. Zhang-Suen (1984): repeat both sub-iterations until neither removes a pixel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/image_view.hpp"

namespace fp::cpu {

// The buffers of a thinning (a framed copy of the image, what is known of each pixel, the
// lists of pixels to visit), kept from one call to the next by whoever thins frame after frame
// (cpu/frame_ops): fresh blocks this large cost a page fault per page, which at 1920x1080
// took longer than the thinning itself, and once the first frame has sized them no call
// allocates. Only thinning reads the contents; one scratch serves one call at a time.
struct ThinningScratch {
  // Makes every buffer hold at least `size` elements (the lists are sized for the worst case,
  // every pixel listed, but only the pages that they use are ever touched).
  void reserve(std::size_t size);

  std::size_t capacity = 0;
  std::unique_ptr<std::uint8_t[]> pixels;
  std::unique_ptr<std::uint8_t[]> state;
  std::unique_ptr<std::uint32_t[]> pending[2];
  std::unique_ptr<std::uint32_t[]> doomed;
  std::unique_ptr<std::uint32_t[]> touched;
  std::vector<std::array<std::size_t, 2>> band_counts;  // list lengths per band of the first scan
};

// Writes 1 for foreground and 0 for background.
void binarize(ConstImageU8 src, ImageU8 dst, int threshold);

// Thins a 0/1 image in place until no pixel changes; returns the number of sub-iteration
// pairs run (including the last one, which changes nothing). Its scratch is kept per calling
// thread.
int zhang_suen(ImageU8 image);

// binarize + zhang_suen, then scales to 0/255. src and dst may be the same plane.
int thinning(ConstImageU8 src, ImageU8 dst, int threshold, ThinningScratch& scratch);

// The same with a scratch kept per calling thread.
int thinning(ConstImageU8 src, ImageU8 dst, int threshold);

}  // namespace fp::cpu
