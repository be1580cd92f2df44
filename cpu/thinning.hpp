// thinning on the CPU: binarize, then Zhang-Suen thinning to convergence; output 0/255.
//
// Binarization: a pixel is foreground when its value is > threshold (so an Otsu threshold
// t puts class 1, (t, 255], in the foreground). Pixels outside the image count as
// background. Zhang-Suen (1984): repeat both sub-iterations until neither removes a pixel.
#pragma once

#include "core/image_view.hpp"

namespace fp::cpu {

// Writes 1 for foreground and 0 for background.
void binarize(ConstImageU8 src, ImageU8 dst, int threshold);

// Thins a 0/1 image in place until no pixel changes; returns the number of sub-iteration
// pairs run (including the last one, which changes nothing).
int zhang_suen(ImageU8 image);

// binarize + zhang_suen, then scales to 0/255. src and dst may be the same plane.
int thinning(ConstImageU8 src, ImageU8 dst, int threshold);

}  // namespace fp::cpu
