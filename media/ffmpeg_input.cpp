#include "media/ffmpeg_input.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "core/open_beneath.hpp"
#include "media/ffmpeg_common.hpp"
#include "media/served_protocols.hpp"
#include "media/stream_uri.hpp"
#include "media/url_protocol.hpp"
#include "media/v4l2_uri.hpp"

namespace fp::ff {

namespace {

// A file in memory has no folder around it: other files it names are not opened.
int refuse_io_open(AVFormatContext*, AVIOContext**, const char*, int, AVDictionary**) { return AVERROR(EPERM); }

// The demuxers a confined file may be read by: containers of one file's own streams. Not
// those that open other inputs by the names inside: concat (an ffconcat list opens its files
// with FFmpeg's own I/O, not through io_open: a `file 'link.y4m'` whose link led out of the
// allowed root was read whole), hls, dash, sdp (RTP from the network), and every other not
// listed. av_match_list matches any of a demuxer's names ("mov,mp4,m4a,...": mov).
constexpr const char* kConfinedFileFormats =
    "mov,matroska,mpegts,mpegtsraw,mpeg,mpegvideo,m4v,h264,hevc,h263,avi,flv,ivf,obu,av1,yuv4mpegpipe,rawvideo,"
    "mjpeg,image2,png_pipe,jpeg_pipe,bmp_pipe,webp_pipe,gif,apng,asf,nut,ogg,mxf,dv,vc1,vc1test,dirac";

// A missing camera says so, instead of FFmpeg's "No such file or directory" on a path the
// user may never have typed (v4l2:///dev/video0 is the default of several examples).
void check_camera_device(const std::string& uri, const std::string& device) {
  struct stat st {};
  if (::stat(device.c_str(), &st) != 0) {
    if (errno == ENOENT)
      fail(uri, "no such camera: " + device + " does not exist (`ls /dev/video*` lists the cameras present)",
           AVERROR(ENOENT));
    fail(uri, "cannot open " + device, AVERROR(errno));
  }
  if (!S_ISCHR(st.st_mode)) fail(uri, device + " is not a camera (a V4L2 device is a character device)");
  if (::access(device.c_str(), R_OK | W_OK) != 0)
    fail(uri, "no permission to open " + device + " (the user must be in its group, usually `video`)", AVERROR(errno));
}

// A file or camera of a confined input, opened beneath its allowed root (`flags`: O_RDONLY
// for a file; O_PATH for a camera, which the v4l2 device then opens itself).
UniqueFd open_confined(const std::string& uri, const std::string& path, const PathConfinement& confined, int flags) {
  try {
    return open_within(path, confined.input_roots, flags);
  } catch (const std::system_error& e) {
    fail(uri, std::string("cannot open: ") + e.what());  // e.what() names the path, the root and the reason
  }
}

// The name by which FFmpeg re-opens exactly the inode held open: the file's /proc magic
// link (a camera's v4l2 device takes a path, never an AVIOContext).
std::string held_path(const UniqueFd& fd) { return "/proc/self/fd/" + std::to_string(fd.get()); }

}  // namespace

OpenedInput open_input(const std::string& full_uri, const AVIOInterruptCB& interrupt, int network_timeout_ms,
                       const PathConfinement* confined) {
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
  UniqueFd camera_fd;  // a confined camera, held until the device has opened it

  if (is_v4l2_uri(full_uri)) {
    V4l2Uri camera;
    try {
      camera = parse_v4l2_uri(full_uri);
    } catch (const std::invalid_argument& e) {
      fail(uri, e.what());
    }
    url = camera.device;
    if (confined != nullptr) {
      camera_fd = open_confined(uri, camera.device, *confined, O_PATH);
      url = held_path(camera_fd);
    }
    check_camera_device(uri, url);
    format = av_find_input_format("v4l2");
    if (format == nullptr) fail(uri, "cannot open: this FFmpeg build has no v4l2 input device");
    if (!camera.size.empty()) set_option(uri, options, "video_size", camera.size.c_str());
    if (!camera.fps.empty()) set_option(uri, options, "framerate", camera.fps.c_str());
    if (!camera.format.empty()) set_option(uri, options, "input_format", camera.format.c_str());
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
  if (confined != nullptr && format == nullptr) {
    if (url_protocol(url).is_file()) {
      // The demuxer reads the file opened beneath the root, through our own I/O: what it
      // reads is that inode whatever its name means by now. FFmpeg's file protocol on
      // /proc/self/fd/N would read the same, but this way nothing else can be opened (below)
      // and the real name still tells the demuxer the format by its extension.
      const std::string path = file_protocol_path(url);
      opened.file_io = std::make_unique<FdIo>(uri, open_confined(uri, path, *confined, O_RDONLY));
      url = path;
    } else if (const auto whitelist = served_protocol_whitelist(url)) {
      // Binds the open and every URL the demuxer opens on its own (segments, keys, RTP).
      set_option(uri, options, "protocol_whitelist", whitelist->c_str());
    } else {
      fail(uri, "cannot open: not an input this service reads (protocol '" + url_protocol(url).name + "')");
    }
  }

  // What avformat_find_stream_info reads is buffered and comes out of the first reads at
  // once: from a live input a burst of stale frames, into a queue that drops the oldest when
  // the graph is busy (at start-up it is: 32 streams dropped frames in their first seconds).
  // By default it also reads ~20 frames to measure the frame rate, which a live H.264 stream
  // states in its headers anyway; without that it stops once the decoder knows the stream
  // (7 decoded frames for H.264): 28 frames buffered become 8 (GStreamer's RTSP server, 30 fps).
  if (opened.live) set_option(uri, options, "fpsprobesize", "0");

  AVFormatContext* raw = avformat_alloc_context();
  if (raw == nullptr) fail(uri, "cannot open", AVERROR(ENOMEM));
  raw->interrupt_callback = interrupt;
  if (opened.file_io) {
    raw->pb = opened.file_io->context();  // custom I/O: avformat_close_input leaves it to us
    raw->io_open = &refuse_io_open;       // names in the file (HLS, concat, drefs) were never checked
    raw->format_whitelist = av_strdup(kConfinedFileFormats);  // freed with the context
    if (raw->format_whitelist == nullptr) {
      avformat_free_context(raw);
      fail(uri, "cannot open", AVERROR(ENOMEM));
    }
  }
  // On failure avformat_open_input frees the context itself and nulls the pointer.
  const int ret = with_dictionary(
      options, [&](AVDictionary** dict) { return avformat_open_input(&raw, url.c_str(), format, dict); });
  if (ret < 0) {
    // The one EINVAL of an open through our own I/O: a demuxer not on the list above.
    if (opened.file_io && ret == AVERROR(EINVAL))
      fail(uri, "cannot open: not a video file this service reads (a list of other files, such as ffconcat, HLS "
                "or SDP, is refused: it would open them by the names inside, beyond the allowed roots)", ret);
    if (format != nullptr && ret == AVERROR(EBUSY)) fail(uri, "the camera is busy: another program has it open", ret);
    if (format != nullptr && (ret == AVERROR(ENOTTY) || ret == AVERROR(EINVAL)))
      fail(uri, "cannot open: not a V4L2 capture device, or it cannot capture in the size, fps or format asked for", ret);
    fail(uri, ret == AVERROR_INVALIDDATA ? "not a video" : "cannot open", ret);
  }
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
