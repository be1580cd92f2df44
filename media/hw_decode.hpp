// Whether FFmpeg can decode a stream on NVDEC, decided before its decoder opens (private to
// media/). The GPU itself may still refuse a profile or size when the decoder starts; the
// get_format callback of media/video_decoder sees that and falls back (auto) or fails
// (nvdec).
#pragma once

#include <string>

extern "C" {
#include <libavcodec/avcodec.h>
}

namespace fp {

// Why NVDEC cannot take this stream in framepipe, or "" when it can try.
std::string nvdec_unsupported_reason(const AVCodec* codec, const AVCodecParameters& parameters);

// Whether frames of this software pixel format come out of NVDEC as the NV12 that the GPU
// executor reads (8-bit 4:2:0; 10-bit and 4:4:4 would be P010 and YUV444P).
bool nvdec_gives_nv12(AVPixelFormat software_format);

// Why framepipe does not take NVDEC's frames for a stream of this format ("" when it does).
std::string nvdec_format_refusal(AVPixelFormat software_format);

// The decoder as framepipe reports it: "h264 (nvdec)", "h264 (software)", or, when NVDEC
// was wanted but not used, "h264 (software; NVDEC: <why>)".
std::string decoder_description(const AVCodec* codec, bool nvdec, const std::string& nvdec_refusal);

}  // namespace fp
