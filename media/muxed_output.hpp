// Where an FFmpeg output's packets go (private to media/): a file (mp4, matroska, mpegts,
// y4m), an HLS playlist, or a network stream (MPEG-TS over UDP or SRT, RTSP publish). It
// owns the muxer: the file or connection, the header, each packet, the trailer. A network
// output whose receiver went away can be opened again (media/reconnecting_output does).
//
// Network outputs: every blocking call (connect, write, trailer) has a deadline polled by
// FFmpeg's interrupt callback, so a receiver that stops reading fails that output within
// timeout_ms instead of stalling the run; a stop request (Ctrl-C) ends a connect at once.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "core/open_beneath.hpp"
#include "media/ffmpeg_raii.hpp"
#include "media/frame_sink.hpp"
#include "media/io_deadline.hpp"
#include "media/output_target.hpp"

namespace fp {

class MuxedOutput {
 public:
  // Sets up the muxer for `target` (nothing is opened or created yet), so that the encoder
  // can ask wants_global_header() before it opens. `name` names the output in messages.
  MuxedOutput(std::string name, OutputTarget target, const SinkOptions& options);
  MuxedOutput(const MuxedOutput&) = delete;
  MuxedOutput& operator=(const MuxedOutput&) = delete;

  const std::string& name() const { return path_; }
  // mp4 and matroska store SPS/PPS once in the header; mpegts repeats them in-band.
  bool wants_global_header() const;
  bool stop_requested() const { return options_.stop != nullptr && options_.stop->load(); }

  // Adds the stream of `encoder`'s packets, then opens the file or connects to the receiver
  // and writes the header (for RTSP the ANNOUNCE/RECORD handshake happens here). `encoder`
  // must outlive this output: reopen() makes the stream from it again.
  void open(const AVCodecContext& encoder);
  // A new muxer for the same stream, opened: after the receiver went away. When it fails
  // the output stays closed.
  void reopen();
  bool is_open() const { return format_ != nullptr; }
  // The receiver went away: the muxer is let go (its trailer frees what it holds; it fails,
  // the connection being gone).
  void abandon();

  // Writes one of the encoder's packets and empties it.
  void write(AVPacket& packet);
  // Writes the trailer (the mp4 index lives there) and closes the file. `write_last_packets`
  // (the encoder's drained packets) runs first; when it fails the trailer is still written:
  // it finalizes what can be (a file's index), and it is where a muxer frees its own state
  // (RTSP's RTP muxers, which avformat_free_context does not free). The first error is the
  // one reported.
  void finalize(const std::function<void()>& write_last_packets);
  void close() { format_.reset(); }

 private:
  void create_muxer();
  void add_stream();
  void open_output();
  static int interrupt_callback(void* opaque);
  template <typename Step>
  int with_deadline(Step&& step);
  [[noreturn]] void fail_io(const std::string& what, int errnum) const;
  void check_io(const char* what);
  std::string create_confined_file();
  void discard_new_output();
  bool srt_listener() const;
  std::string connect_failure() const;
  ff::DictionaryPtr muxer_settings();

  std::string path_;  // names the output in messages (without a password)
  OutputTarget target_;
  SinkOptions options_;                  // as opened: connecting again opens the same way
  std::chrono::milliseconds timeout_;    // of each blocking network call
  IoDeadline deadline_;                  // of the current one (files: none)
  bool connecting_ = false;              // a stop request ends the wait
  UniqueFd created_;  // a confined output file, as created beneath the output root
  ff::OutputFormatPtr format_;  // null while closed (a lost receiver)
  AVStream* stream_ = nullptr;
  const AVCodecContext* encoder_ = nullptr;  // whose packets the stream carries
};

}  // namespace fp
