// `framepipe probe`: what a URI holds, described with the same opening and stream choice
// that a run uses.
#include "media/probe.hpp"

#include <fmt/format.h>

#include "media/ffmpeg_common.hpp"
#include "media/ffmpeg_input.hpp"
#include "media/hw_decode.hpp"
#include "media/stream_uri.hpp"
#include "media/testsrc_uri.hpp"

extern "C" {
#include <libavutil/pixdesc.h>
}

namespace fp {

namespace {

ProbeResult probe_testsrc(const std::string& uri) {
  const TestSourceParams params = parse_testsrc_uri(uri);
  ProbeResult result;
  result.uri = uri;
  result.format = "testsrc";
  if (params.frames > 0) result.duration_seconds = static_cast<double>(params.frames) / params.fps.value();
  StreamDescription stream;
  stream.type = "video";
  stream.codec = "testsrc";
  stream.details = fmt::format("{}x{} yuv420p {} fps, {}", params.width, params.height, ff::format_fps(params.fps),
                               params.frames > 0 ? fmt::format("{} frames", params.frames) : std::string("endless"));
  if (params.noise > 0) stream.details += fmt::format(", noise sigma {}", params.noise);
  stream.decoder = "testsrc";
  stream.width = params.width;
  stream.height = params.height;
  stream.frame_rate = params.fps.value();
  result.streams.push_back(std::move(stream));
  return result;
}

std::string video_details(AVFormatContext* format, AVStream* stream) {
  const AVCodecParameters* par = stream->codecpar;
  const char* pix_fmt = av_get_pix_fmt_name(static_cast<AVPixelFormat>(par->format));
  std::string text = fmt::format("{}x{} {}", par->width, par->height, pix_fmt != nullptr ? pix_fmt : "unknown");
  const AVRational rate = av_guess_frame_rate(format, stream, nullptr);
  if (rate.num > 0 && rate.den > 0) text += fmt::format(" {} fps", ff::format_fps(ff::to_rational(rate)));
  if (stream->nb_frames > 0) text += fmt::format(", {} frames", stream->nb_frames);
  return text;
}

std::string audio_details(const AVCodecParameters* par) {
  const char* sample_fmt = av_get_sample_fmt_name(static_cast<AVSampleFormat>(par->format));
  return fmt::format("{} Hz, {} channels{}{}", par->sample_rate, par->ch_layout.nb_channels,
                     sample_fmt != nullptr ? ", " : "", sample_fmt != nullptr ? sample_fmt : "");
}

}  // namespace

ProbeResult probe(const std::string& uri, const std::atomic<bool>* stop) {
  if (is_testsrc_uri(uri)) return probe_testsrc(uri);
  // FFmpeg polls this in every blocking open and read; the flag outlives the call.
  const auto stop_requested = [](void* flag) { return static_cast<const std::atomic<bool>*>(flag)->load() ? 1 : 0; };
  const AVIOInterruptCB interrupt = stop != nullptr ? AVIOInterruptCB{stop_requested, const_cast<std::atomic<bool>*>(stop)}
                                                    : AVIOInterruptCB{nullptr, nullptr};
  ff::OpenedInput input = ff::open_input(uri, interrupt);
  AVFormatContext* format = input.format.get();

  ProbeResult result;
  result.uri = mask_credentials(uri);  // printed: never the password
  result.format = format->iformat->name;
  if (format->duration != AV_NOPTS_VALUE && format->duration > 0)
    result.duration_seconds = static_cast<double>(format->duration) / AV_TIME_BASE;

  // The stream a run would decode; the others are listed for information.
  const int chosen = av_find_best_stream(format, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
  for (unsigned i = 0; i < format->nb_streams; ++i) {
    AVStream* stream = format->streams[i];
    const AVCodecParameters* par = stream->codecpar;
    StreamDescription desc;
    desc.index = stream->index;
    const char* type = av_get_media_type_string(par->codec_type);
    desc.type = type != nullptr ? type : "unknown";
    desc.codec = avcodec_get_name(par->codec_id);
    if (par->codec_type == AVMEDIA_TYPE_VIDEO) {
      desc.details = video_details(format, stream);
      desc.width = par->width;
      desc.height = par->height;
      if (const AVRational rate = av_guess_frame_rate(format, stream, nullptr); rate.num > 0 && rate.den > 0)
        desc.frame_rate = av_q2d(rate);
      const AVCodec* decoder = avcodec_find_decoder(par->codec_id);
      if (chosen >= 0 && static_cast<int>(i) != chosen)
        desc.decoder = fmt::format("not used (framepipe reads stream #{})", chosen);
      else
      {
        desc.decoder = decoder != nullptr ? decoder_description(decoder, false, "") : "none (unsupported codec)";
        if (decoder != nullptr) {
          const auto reason = nvdec_unsupported_reason(decoder, *par);
          desc.gpu_decoder = decoder_description(decoder, reason.empty(), reason);
        }
      }
    } else if (par->codec_type == AVMEDIA_TYPE_AUDIO) {
      desc.details = audio_details(par);
    }
    result.streams.push_back(std::move(desc));
  }
  return result;
}

}  // namespace fp
