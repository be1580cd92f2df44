#include "media/hw_decode.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/pixdesc.h>
}

namespace fp {

bool nvdec_gives_nv12(AVPixelFormat software_format) {
  return software_format == AV_PIX_FMT_YUV420P || software_format == AV_PIX_FMT_YUVJ420P;
}

std::string nvdec_unsupported_reason(const AVCodec* codec, const AVCodecParameters& parameters) {
  bool cuda = false;
  for (int i = 0;; ++i) {
    const AVCodecHWConfig* config = avcodec_get_hw_config(codec, i);
    if (config == nullptr) break;
    if (config->device_type == AV_HWDEVICE_TYPE_CUDA && (config->methods & AV_CODEC_HW_CONFIG_METHOD_HW_DEVICE_CTX))
      cuda = true;
  }
  if (!cuda) return std::string("FFmpeg here has no NVDEC decoder for ") + codec->name;
  // Unknown until the first picture (a live stream probed briefly): get_format decides.
  const auto format = static_cast<AVPixelFormat>(parameters.format);
  if (format == AV_PIX_FMT_NONE) return {};
  return nvdec_format_refusal(format);
}

std::string nvdec_format_refusal(AVPixelFormat software_format) {
  if (nvdec_gives_nv12(software_format)) return {};
  const char* name = av_get_pix_fmt_name(software_format);
  // 10-bit and 4:4:4 would come out as P010/YUV444P: the software path converts those.
  return std::string("the stream is ") + (name != nullptr ? name : "an unknown pixel format") +
         "; framepipe reads NVDEC's 8-bit 4:2:0 (NV12) frames only";
}

std::string decoder_description(const AVCodec* codec, bool nvdec, const std::string& nvdec_refusal) {
  if (codec == nullptr) return "none";
  if (nvdec) return std::string(codec->name) + " (nvdec)";
  if (nvdec_refusal.empty()) return std::string(codec->name) + " (software)";
  return std::string(codec->name) + " (software; NVDEC: " + nvdec_refusal + ")";
}

}  // namespace fp
