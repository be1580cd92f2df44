#include "media/ffmpeg_input.hpp"

#include <stdexcept>
#include <string_view>

#include "media/ffmpeg_common.hpp"
#include "media/stream_uri.hpp"

namespace fp::ff {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

void set_option(const std::string& uri, DictionaryPtr& options, const char* key, const char* value) {
  if (const int ret = dict_set(options, key, value); ret < 0) fail(uri, std::string("cannot set option ") + key, ret);
}

// A file in memory has no folder around it: other files it names are not opened.
int refuse_io_open(AVFormatContext*, AVIOContext**, const char*, int, AVDictionary**) { return AVERROR(EPERM); }

}  // namespace

OpenedInput open_input(const std::string& full_uri, const AVIOInterruptCB& interrupt, int network_timeout_ms) {
  global_init();
  // Every message names the input without its password; FFmpeg gets the real URL.
  const std::string uri = mask_credentials(full_uri);
  std::string url = full_uri;
  // FFmpeg's socket timeout is a backstop, later than the deadlines of the source's
  // interrupt callback (a read: the timeout; an open: twice it), which end a wait with a
  // message that says what happened ("no answer within 10 s"); FFmpeg's own end of a timed
  // out RTSP handshake reads "Invalid data found when processing input".
  const std::string timeout_us = std::to_string((2 * static_cast<long long>(network_timeout_ms) + 1000) * 1000);
  const AVInputFormat* format = nullptr;
  DictionaryPtr options;
  OpenedInput opened;

  if (starts_with(full_uri, "v4l2://")) {
    url = full_uri.substr(std::string_view("v4l2://").size());
    if (url.empty()) fail(uri, "no device given (expected v4l2:///dev/videoN)");
    format = av_find_input_format("v4l2");
    if (format == nullptr) fail(uri, "cannot open: this FFmpeg build has no v4l2 input device");
    opened.live = true;
  } else if (is_rtsp_uri(full_uri)) {
    RtspUri rtsp;
    try {
      rtsp = parse_rtsp_uri(full_uri);
    } catch (const std::invalid_argument& e) {
      fail(uri, e.what());
    }
    url = rtsp.url;
    // TCP by default: no lost packets (and no smeared frames) behind NATs and firewalls
    // that drop UDP. `timeout` is RTSP's socket I/O timeout in microseconds.
    set_option(uri, options, "rtsp_transport", rtsp.transport == RtspTransport::Udp ? "udp" : "tcp");
    set_option(uri, options, "timeout", timeout_us.c_str());
    opened.live = true;
  } else if (is_network_uri(full_uri)) {
    set_option(uri, options, "rw_timeout", timeout_us.c_str());
    opened.live = is_live_uri(full_uri);
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
