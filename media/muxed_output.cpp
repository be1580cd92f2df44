#include "media/muxed_output.hpp"

#include <exception>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "media/ffmpeg_common.hpp"
#include "media/media_error.hpp"

namespace fp {

MuxedOutput::MuxedOutput(std::string name, OutputTarget target, const SinkOptions& options)
    : path_(std::move(name)),
      target_(std::move(target)),
      options_(options),
      timeout_(options.network_timeout_ms),
      deadline_(is_network_output(target_.kind)) {
  ff::global_init();
  create_muxer();
  // latency: low: every packet handed to the file or network at once (y4m frames are not
  // encoded, so there is nothing to hurry). Only this first muxer is told: one made again
  // by reopen() goes without, as it did when encoder and muxer were one class.
  if (options.low_latency && target_.muxer != "yuv4mpegpipe") format_->flags |= AVFMT_FLAG_FLUSH_PACKETS;
}

bool MuxedOutput::wants_global_header() const { return (format_->oformat->flags & AVFMT_GLOBALHEADER) != 0; }

void MuxedOutput::create_muxer() {
  const char* muxer = target_.muxer.c_str();
  AVFormatContext* ctx = nullptr;
  const int ret = avformat_alloc_output_context2(&ctx, nullptr, muxer, target_.url.c_str());
  if (ret < 0 || ctx == nullptr)
    ff::fail(path_, std::string("cannot set up the ") + muxer + " muxer", ret < 0 ? ret : AVERROR(ENOMEM));
  format_.reset(ctx);
  // `this` is stable: sinks live on the heap behind the unique_ptr open_sink returns.
  format_->interrupt_callback = AVIOInterruptCB{&MuxedOutput::interrupt_callback, this};
}

// Polled by FFmpeg in every blocking call: a stop request ends a connect (the user gave up
// on a receiver that does not answer), and a network call past its deadline fails. Writes
// are not ended by a stop: Ctrl-C drains and finalizes every output.
int MuxedOutput::interrupt_callback(void* opaque) {
  auto* self = static_cast<MuxedOutput*>(opaque);
  if (self->connecting_ && self->stop_requested()) return 1;
  return self->deadline_.expired() ? 1 : 0;
}

// Runs one blocking step of a network output under the deadline; a step ended by it fails
// with a message that says so (fail_io).
template <typename Step>
int MuxedOutput::with_deadline(Step&& step) {
  deadline_.arm(timeout_);
  const int ret = step();
  deadline_.disarm();
  return ret;
}

void MuxedOutput::fail_io(const std::string& what, int errnum) const {
  if (deadline_.timed_out())
    ff::fail(path_, what + ": no progress within " + IoDeadline::seconds_text(timeout_) + " (timeout_ms)",
             AVERROR(ETIMEDOUT));
  ff::fail(path_, what, errnum);
}

// Writes go through AVIOContext's buffer: a failed flush (a full disk) is only recorded in
// pb->error, which some muxers never look at, so it is checked after each packet.
void MuxedOutput::check_io(const char* what) {
  if (format_->pb != nullptr && format_->pb->error < 0) fail_io(what, format_->pb->error);
}

void MuxedOutput::open(const AVCodecContext& encoder) {
  encoder_ = &encoder;
  add_stream();
  open_output();
}

void MuxedOutput::reopen() {
  try {
    create_muxer();
    add_stream();
    open_output();
  } catch (const MediaError&) {
    format_.reset();
    throw;
  }
}

void MuxedOutput::abandon() {
  with_deadline([&] { return av_write_trailer(format_.get()); });
  format_.reset();
}

void MuxedOutput::add_stream() {
  stream_ = avformat_new_stream(format_.get(), nullptr);
  if (stream_ == nullptr) ff::fail(path_, "cannot add a stream", AVERROR(ENOMEM));
  if (const int ret = avcodec_parameters_from_context(stream_->codecpar, encoder_); ret < 0)
    ff::fail(path_, "cannot set stream parameters", ret);
  stream_->time_base = encoder_->time_base;  // a hint: the muxer may choose another
  stream_->avg_frame_rate = encoder_->framerate;
  stream_->r_frame_rate = encoder_->framerate;
}

void MuxedOutput::open_output() {
  ff::DictionaryPtr muxer_options = muxer_settings();
  connecting_ = is_network_output(target_.kind);  // a file's header is written whatever comes
  if ((format_->oformat->flags & AVFMT_NOFILE) == 0) {
    const std::string url = options_.confined ? create_confined_file() : target_.url;
    auto open = [&] {
      return avio_open2(&format_->pb, url.c_str(), AVIO_FLAG_WRITE, &format_->interrupt_callback, nullptr);
    };
    // An SRT listener waits for its receiver to call, for as long as it takes (Ctrl-C ends it).
    const int ret = srt_listener() ? open() : with_deadline(open);
    if (ret < 0) fail_io(is_network_output(target_.kind) ? connect_failure() : "cannot create", ret);
  }
  const int ret = with_deadline([&] {
    return ff::with_dictionary(muxer_options, [&](AVDictionary** d) { return avformat_write_header(format_.get(), d); });
  });
  connecting_ = false;
  if (ret < 0) {
    const bool timed_out = deadline_.timed_out();
    discard_new_output();
    const std::string what = is_network_output(target_.kind) ? connect_failure() : "cannot write the header";
    if (timed_out) fail_io(what, ret);
    ff::fail(path_, what, ret);
  }
  try {
    ff::require_all_taken(path_, std::string("the ") + target_.muxer + " muxer", muxer_options);
  } catch (...) {
    discard_new_output();
    throw;
  }
}

// A service's output file, created beneath the output root (the name was checked when the
// stream was accepted; a symlink swapped in since refuses). FFmpeg gets the file's /proc
// magic link rather than an AVIOContext of ours: its file protocol then re-opens exactly
// the inode held here (truncating what is already empty), and writing, seeking back for the
// header, flushing, error reporting and closing stay FFmpeg's own, as for any other file.
// The muxer was picked from the real name (target_.muxer), never from this one.
std::string MuxedOutput::create_confined_file() {
  if (target_.kind != OutputKind::File)
    ff::fail(path_, "cannot create: a service writes files one by one beneath its output root, and an HLS playlist "
                    "writes and deletes segments by name (use .mp4, .mkv, .ts or .y4m)");
  try {
    created_ = create_within(target_.url, options_.confined->output_root);
  } catch (const std::system_error& e) {
    ff::fail(path_, std::string("cannot create: ") + e.what());  // e.what(): the path, the root, the reason
  }
  return "/proc/self/fd/" + std::to_string(created_.get());
}

// Leaves no unreadable stub behind when opening fails: the file was created just now, by us.
void MuxedOutput::discard_new_output() {
  format_.reset();
  if (target_.kind != OutputKind::File) return;
  if (options_.confined) {
    remove_within(target_.url, options_.confined->output_root, created_);  // by name only if still ours
    return;
  }
  std::error_code ignored;
  std::filesystem::remove(target_.url, ignored);
}

bool MuxedOutput::srt_listener() const {
  return target_.kind == OutputKind::Srt && target_.url.find("mode=listener") != std::string::npos;
}

// libsrt says only "Input/output error" when nobody answers a caller.
std::string MuxedOutput::connect_failure() const {
  if (target_.kind == OutputKind::Srt && !srt_listener())
    return "cannot connect (no SRT listener answered there; with ?mode=listener framepipe waits for the receiver "
           "to call instead)";
  return "cannot connect";
}

// The muxer's options: HLS segments and playlist, the RTSP transport.
ff::DictionaryPtr MuxedOutput::muxer_settings() {
  const SinkOptions& options = options_;
  ff::DictionaryPtr opts;
  auto set = [&](const char* key, const std::string& value) { ff::set_option(path_, opts, key, value.c_str()); };
  if (target_.kind == OutputKind::Hls) {
    set("hls_time", fmt::format("{:g}", options.hls_segment_seconds));
    set("hls_list_size", std::to_string(options.hls_playlist_size));
    // A live playlist of a few segments deletes the older ones, so that a run of days
    // does not fill the disk; playlist_size 0 keeps every segment (a whole recording).
    // Segments start with a key frame and need none before them.
    set("hls_flags", options.hls_playlist_size > 0 ? "delete_segments+independent_segments" : "independent_segments");
  } else if (target_.kind == OutputKind::Rtsp) {
    set("rtsp_transport", target_.rtsp_over_udp ? "udp" : "tcp");
  }
  return opts;
}

void MuxedOutput::write(AVPacket& packet) {
  av_packet_rescale_ts(&packet, encoder_->time_base, stream_->time_base);
  packet.stream_index = stream_->index;
  // One stream needs no interleaving; av_write_frame also writes a y4m packet at once, so
  // the encoder's reference to the sink's frame buffer is dropped before the next write.
  const int ret = with_deadline([&] { return av_write_frame(format_.get(), &packet); });
  av_packet_unref(&packet);
  if (ret < 0) fail_io("cannot write", ret);
  check_io("cannot write");
}

void MuxedOutput::finalize(const std::function<void()>& write_last_packets) {
  std::exception_ptr drain_error;
  try {
    write_last_packets();
  } catch (...) {
    drain_error = std::current_exception();
  }
  const int trailer = with_deadline([&] { return av_write_trailer(format_.get()); });
  if (drain_error) std::rethrow_exception(drain_error);
  if (trailer < 0) fail_io("cannot finalize", trailer);
  check_io("cannot finalize");
  if ((format_->oformat->flags & AVFMT_NOFILE) == 0) {
    if (const int ret = with_deadline([&] { return avio_closep(&format_->pb); }); ret < 0) fail_io("cannot close", ret);
  }
}

}  // namespace fp
