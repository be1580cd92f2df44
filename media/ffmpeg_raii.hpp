// Owning handles for FFmpeg objects: each deleter calls the matching FFmpeg free function,
// so an exception thrown halfway through opening a source or sink leaks nothing.
#pragma once

#include <memory>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/buffer.h>
#include <libavutil/dict.h>
#include <libavutil/frame.h>
#include <libswscale/swscale.h>
}

namespace fp::ff {

// A demuxer opened with avformat_open_input must be closed with avformat_close_input.
struct InputFormatDeleter {
  void operator()(AVFormatContext* ctx) const { avformat_close_input(&ctx); }
};
using InputFormatPtr = std::unique_ptr<AVFormatContext, InputFormatDeleter>;

// A muxer owns its AVIOContext only when the format writes to a file (not AVFMT_NOFILE).
// Closing here does not write the trailer: that is the sink's job, and a sink that failed
// before its header was written has no trailer to write.
struct OutputFormatDeleter {
  void operator()(AVFormatContext* ctx) const {
    if (ctx->oformat != nullptr && (ctx->oformat->flags & AVFMT_NOFILE) == 0) avio_closep(&ctx->pb);
    avformat_free_context(ctx);
  }
};
using OutputFormatPtr = std::unique_ptr<AVFormatContext, OutputFormatDeleter>;

struct CodecContextDeleter {
  void operator()(AVCodecContext* ctx) const { avcodec_free_context(&ctx); }
};
using CodecContextPtr = std::unique_ptr<AVCodecContext, CodecContextDeleter>;

struct FrameDeleter {
  void operator()(AVFrame* frame) const { av_frame_free(&frame); }
};
using FramePtr = std::unique_ptr<AVFrame, FrameDeleter>;

struct PacketDeleter {
  void operator()(AVPacket* packet) const { av_packet_free(&packet); }
};
using PacketPtr = std::unique_ptr<AVPacket, PacketDeleter>;

struct SwsDeleter {
  void operator()(SwsContext* ctx) const { sws_freeContext(ctx); }
};
using SwsPtr = std::unique_ptr<SwsContext, SwsDeleter>;

struct BufferRefDeleter {
  void operator()(AVBufferRef* ref) const { av_buffer_unref(&ref); }
};
using BufferRefPtr = std::unique_ptr<AVBufferRef, BufferRefDeleter>;

struct DictionaryDeleter {
  void operator()(AVDictionary* dict) const { av_dict_free(&dict); }
};
using DictionaryPtr = std::unique_ptr<AVDictionary, DictionaryDeleter>;

// FFmpeg takes dictionaries as AVDictionary** and may replace them (av_dict_set, open calls
// that leave the unused entries behind). This lends the raw pointer to such a call and takes
// ownership back afterwards, so the dictionary is freed on every path. fn must not throw.
template <class Fn>
int with_dictionary(DictionaryPtr& dict, Fn&& fn) {
  AVDictionary* raw = dict.release();
  const int ret = fn(&raw);
  dict.reset(raw);
  return ret;
}

inline int dict_set(DictionaryPtr& dict, const char* key, const char* value) {
  return with_dictionary(dict, [&](AVDictionary** d) { return av_dict_set(d, key, value, 0); });
}

}  // namespace fp::ff
