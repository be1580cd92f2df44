// The decoder of an FFmpeg input's video stream (private to media/): on NVDEC (frames stay
// on the GPU as NV12, see nvdec_device.hpp) or in software (in threads; yuv420p pictures are
// decoded straight into pooled planes (decode_buffers.hpp), anything else is converted into
// pooled I420 frames). Takes packets, hands out Frames; the packets come from the source's
// demux loop (media/ffmpeg_source.cpp), which also judges damage.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/block_recycler.hpp"
#include "core/frame_pool.hpp"
#include "media/decode_buffers.hpp"
#include "media/decode_errors.hpp"
#include "media/ffmpeg_raii.hpp"
#include "media/frame_source.hpp"
#include "media/memory_source.hpp"
#include "media/nvdec_device.hpp"
#include "media/packet_arrivals.hpp"

namespace fp {

struct DecoderSettings {
  PlaneMemory memory;  // where frames are made
  DecodeMode mode = DecodeMode::Software;
  int cuda_device = -1;  // the GPU that NVDEC decodes on
  int frames_held = 8;   // see SourceOptions::frames_held
  OnDecodeError on_error = OnDecodeError::Skip;  // stop keeps auto off NVDEC, which hides damage
  DecodeOptions limits;  // threads, largest frame
  bool live = false;     // a camera or network stream: slice threads only
};

class VideoDecoder {
 public:
  // Opens the decoder for `stream` (its `codec` as av_find_best_stream chose it). `name` is
  // the input in messages. Throws MediaError; under DecodeMode::Nvdec also when NVDEC
  // cannot take the stream.
  VideoDecoder(std::string name, const AVStream& stream, const AVCodec* codec, const DecoderSettings& settings);
  VideoDecoder(const VideoDecoder&) = delete;
  VideoDecoder& operator=(const VideoDecoder&) = delete;

  // The size the decoder opened with: the stream's, for every frame after.
  int width() const { return width_; }
  int height() const { return height_; }
  // FrameSource::decoder_name(): "h264 (nvdec)", "h264 (software; NVDEC: <why>)"...
  std::string description() const;
  // Frames come from NVDEC (device memory, NV12), as far as the decoder knows yet: a GPU
  // that refuses the stream's profile says so at the first picture (then software).
  bool on_nvdec() const { return on_nvdec_.load(); }
  // decode: nvdec, and the GPU refused the stream after all (nvdec_reason() says why).
  bool nvdec_refused() const { return mode_ == DecodeMode::Nvdec && !on_nvdec_.load(); }
  std::string nvdec_reason() const;

  // avcodec_send_packet, noting when the packet came in (the frames' arrival).
  int send(const AVPacket& packet);
  // No more packets: the decoder gives out what it holds, then AVERROR_EOF.
  void flush();
  // avcodec_receive_frame: 0 when a picture came out (received()), else AVERROR(EAGAIN),
  // AVERROR_EOF or an error.
  int receive();
  const AVFrame& received() const { return *frame_; }
  void drop_received() { av_frame_unref(frame_.get()); }
  // The received picture as a Frame, stamped with its pts and its packet's arrival: NVDEC's
  // device planes, or I420 host planes (where the decoder wrote them, else copied or
  // converted). The picture is left empty for the next one.
  Frame take_frame();

  // "<name>: stream #N (codec): <what>": how every failure about this stream reads.
  [[noreturn]] void fail(const std::string& what, int errnum) const;
  [[noreturn]] void fail(const std::string& what) const;

 private:
  std::string stream_name() const;
  void set_up_nvdec();
  static AVPixelFormat choose_format(AVCodecContext* context, const AVPixelFormat* formats) noexcept;
  static int get_buffer(AVCodecContext* context, AVFrame* frame, int flags) noexcept;
  void set_nvdec_reason(std::string reason);
  Frame device_frame();
  Frame decoded_in_place();
  std::shared_ptr<AVFrame> hold_received();
  void stamp(Frame& out, std::int64_t pts);
  Frame acquire();
  Frame convert();

  std::string uri_;  // the input, masked
  const AVStream* stream_;
  const AVCodec* codec_;
  PlaneMemory memory_;
  // What software decoding decodes into. Declared before the decoder, whose threads may still
  // ask it for buffers while the decoder is being closed.
  DecodeBuffers buffers_{memory_};
  ff::CodecContextPtr decoder_;
  ff::FramePtr frame_;  // the picture received
  // The control blocks of the pictures Frames hold (hold_received): a new one each frame
  // would be a heap allocation a frame; the blocks outlive the decoder while Frames do.
  std::shared_ptr<BlockRecycler> held_blocks_ = std::make_shared<BlockRecycler>();
  ff::SwsPtr scaler_;
  std::optional<FramePool> pool_;  // frames converted from other pixel formats
  int width_ = 0;
  int height_ = 0;
  Rational time_base_;  // the stream's: of every pts
  DecodeMode mode_;
  int cuda_device_;
  int frames_held_;
  OnDecodeError on_error_;
  std::unique_ptr<NvdecDevice> nvdec_;  // decode: auto|nvdec, when NVDEC can take the stream
  std::atomic<bool> on_nvdec_{false};   // frames come from NVDEC (get_format may change it)
  mutable std::mutex nvdec_mutex_;
  std::string nvdec_reason_;            // why NVDEC is not used (auto) or failed (nvdec)
  PacketArrivals arrivals_;  // of the packets sent, by pts
};

}  // namespace fp
