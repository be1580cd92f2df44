// One frame as a JPEG picture, for a look at a running stream (framepipe serve's
// /v1/streams/NAME/snapshot.jpg). FFmpeg's mjpeg encoder, on the CPU.
#pragma once

#include <string>

#include "core/frame.hpp"

namespace fp {

// The JPEG bytes of `host_frame`: an I420 frame in host memory (a frame without chroma
// planes gets neutral grey chroma). `quality` 1 (smallest) to 100 (best). The values are
// written as they are: framepipe does not track colour range, so a limited-range video
// looks a little flat in a viewer that assumes JPEG's full range. Throws MediaError
// ("jpeg: ...") on a device frame, an empty frame, a quality out of range, or an encoder
// failure.
std::string encode_jpeg(const Frame& host_frame, int quality = 80);

}  // namespace fp
