#include "media/ffmpeg_input.hpp"

#include <array>
#include <string_view>

#include "media/ffmpeg_common.hpp"

namespace fp::ff {

namespace {

// How long a network read may block before it fails (microseconds): long enough for a
// slow camera, short enough that a dead one is reported instead of hanging the pipeline.
constexpr const char* kNetworkTimeoutUs = "5000000";

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// Protocols that deliver a live feed: frames arrive in real time and may be dropped.
bool is_live_protocol(std::string_view uri) {
  constexpr std::array<std::string_view, 7> kLive = {"rtsp://", "rtsps://", "rtmp://", "rtmps://",
                                                     "udp://",  "rtp://",   "srt://"};
  for (auto prefix : kLive)
    if (starts_with(uri, prefix)) return true;
  return false;
}

void set_option(const std::string& uri, DictionaryPtr& options, const char* key, const char* value) {
  if (const int ret = dict_set(options, key, value); ret < 0) fail(uri, std::string("cannot set option ") + key, ret);
}

// A file in memory has no folder around it: other files it names are not opened.
int refuse_io_open(AVFormatContext*, AVIOContext**, const char*, int, AVDictionary**) { return AVERROR(EPERM); }

}  // namespace

OpenedInput open_input(const std::string& uri, const AVIOInterruptCB& interrupt) {
  global_init();
  std::string url = uri;
  const AVInputFormat* format = nullptr;
  DictionaryPtr options;
  OpenedInput opened;

  if (starts_with(uri, "v4l2://")) {
    url = uri.substr(std::string_view("v4l2://").size());
    if (url.empty()) fail(uri, "no device given (expected v4l2:///dev/videoN)");
    format = av_find_input_format("v4l2");
    if (format == nullptr) fail(uri, "cannot open: this FFmpeg build has no v4l2 input device");
    opened.live = true;
  } else if (starts_with(uri, "rtsp://") || starts_with(uri, "rtsps://")) {
    // TCP: no lost packets (and no smeared frames) behind NATs and firewalls that drop UDP.
    set_option(uri, options, "rtsp_transport", "tcp");
    set_option(uri, options, "timeout", kNetworkTimeoutUs);
    opened.live = true;
  } else if (uri.find("://") != std::string::npos && !starts_with(uri, "file://")) {
    set_option(uri, options, "rw_timeout", kNetworkTimeoutUs);
    opened.live = is_live_protocol(uri);
  }

  AVFormatContext* raw = avformat_alloc_context();
  if (raw == nullptr) fail(uri, "cannot open", AVERROR(ENOMEM));
  raw->interrupt_callback = interrupt;
  // On failure avformat_open_input frees the context itself and nulls the pointer.
  const int ret = with_dictionary(
      options, [&](AVDictionary** dict) { return avformat_open_input(&raw, url.c_str(), format, dict); });
  if (ret < 0) fail(uri, ret == AVERROR_INVALIDDATA ? "not a video" : "cannot open", ret);
  opened.format.reset(raw);

  if (const int info = avformat_find_stream_info(opened.format.get(), nullptr); info < 0)
    fail(uri, "cannot read stream info", info);
  return opened;
}

OpenedInput open_memory_input(const std::string& name, std::span<const std::uint8_t> bytes,
                              const AVIOInterruptCB& interrupt) {
  global_init();
  OpenedInput opened;
  opened.io = std::make_unique<MemoryIo>(name, bytes);
  AVFormatContext* raw = avformat_alloc_context();
  if (raw == nullptr) fail(name, "cannot open", AVERROR(ENOMEM));
  raw->interrupt_callback = interrupt;
  raw->pb = opened.io->context();  // custom I/O: avformat_close_input leaves it to us
  raw->io_open = &refuse_io_open;
  // The name has no extension to go by: the format is probed from the bytes alone.
  const int ret = avformat_open_input(&raw, "", nullptr, nullptr);
  if (ret < 0) fail(name, ret == AVERROR_INVALIDDATA ? "not a video" : "cannot open", ret);
  opened.format.reset(raw);
  if (const int info = avformat_find_stream_info(opened.format.get(), nullptr); info < 0)
    fail(name, "cannot read stream info", info);
  return opened;
}

}  // namespace fp::ff
