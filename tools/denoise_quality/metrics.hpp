// The scores of a denoised sequence against its clean original, over frames from..to:
//   psnr     mean over frames of 10 log10(255^2 / MSE), capped at 100 dB (MSE 0: 100)
//   ssim     mean over frames of SSIM (Wang, Bovik, Sheikh, Simoncelli 2004): an 11x11
//            Gaussian window of sigma 1.5, K1 0.01, K2 0.03, L 255, over the windows that fit
//            inside the frame (no padding), averaged over them
//   flicker  mean over n in from..to of the mean over pixels of |f_n - f_(n-1)|, of the test
//            sequence; clean_flicker the same of the clean one (what motion alone gives)
#pragma once

#include "core/image_view.hpp"
#include "tools/denoise_quality/gray_video.hpp"

namespace fp::quality {

inline constexpr double kPsnrCap = 100.0;

struct Score {
  double psnr = 0;
  double ssim = 0;
  double flicker = 0;
  double clean_flicker = 0;
};

struct FrameRange {
  int from = 0;  // inclusive
  int to = 0;    // inclusive
};

double psnr(ConstImageU8 clean, ConstImageU8 test);
double ssim(ConstImageU8 clean, ConstImageU8 test);      // needs frames of 11x11 or more
double mean_abs_difference(ConstImageU8 a, ConstImageU8 b);

// Throws UsageError when the videos differ in size or the range is outside them (from >= 1:
// flicker needs the frame before).
void check_range(const GrayVideo& clean, const GrayVideo& test, FrameRange range);

// All four, frames spread over the cores.
Score score(const GrayVideo& clean, const GrayVideo& test, FrameRange range);

}  // namespace fp::quality
