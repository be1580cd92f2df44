#include "stages/decode_stage.hpp"

#include <spdlog/spdlog.h>

#include <stdexcept>

#include "media/frame_source.hpp"
#include "media/stream_uri.hpp"
#include "media/v4l2_uri.hpp"
#include "stages/decode_error_log.hpp"
#include "stages/reconnect_params.hpp"
#include "stages/stage_memory.hpp"

namespace fp {

namespace {

class DecodeStage final : public SourceStage {
 public:
  DecodeStage(std::string uri, SourceOptions options, Device device, ReconnectListener observer)
      : uri_(std::move(uri)), name_(mask_credentials(uri_)), options_(std::move(options)), device_(device),
        error_log_(name_), observer_(std::move(observer)) {}

  VideoInfo open() override {
    // Decoded frames go to the GPU next when the pipeline runs there: NVDEC decodes them
    // there (auto, nvdec); software decoding writes them where the upload reads fastest.
    options_.memory = host_staging_memory_for(device_);
    if (device_.kind == DeviceKind::Cuda) {
      options_.cuda_device = device_.ordinal;
    } else if (options_.decode == DecodeMode::Nvdec) {
      throw std::runtime_error(name_ + ": decode: nvdec needs the pipeline on a GPU (device: cuda), not the CPU");
    } else {
      options_.decode = DecodeMode::Software;  // auto: the CPU pipeline reads host frames
    }
    // The log line first, then whoever watches the run (the stream's state in a service).
    options_.on_reconnect = [log = reconnect_logger(name_, options_.reconnect),
                             observer = observer_](const ReconnectEvent& event) {
      log(event);
      if (observer) observer(event);
    };
    source_ = open_source(uri_, options_);
    return source_->info();
  }
  std::optional<Frame> read() override {
    auto frame = source_->read();
    if (auto line = error_log_.update(source_->decode_errors(), DecodeErrorLog::Clock::now(), !frame))
      spdlog::warn("{}", *line);
    return frame;
  }
  std::string decoder_name() const override { return source_ ? source_->decoder_name() : "none"; }
  void interrupt() override {
    if (source_) source_->interrupt();
  }
  DecodeErrors decode_errors() const override { return source_ ? source_->decode_errors() : DecodeErrors{}; }
  void start_at_live_edge() override {
    if (source_) source_->start_at_live_edge();
  }
  std::int64_t frames_skipped_to_live() const override { return source_ ? source_->frames_skipped_to_live() : 0; }
  std::optional<ReconnectStats> reconnect_stats() const override {
    const ReconnectStats* stats = source_ ? source_->reconnect_stats() : nullptr;
    if (stats == nullptr) return std::nullopt;
    return *stats;
  }

 private:
  std::string uri_;   // with credentials: only FFmpeg sees it
  std::string name_;  // masked: for every message
  SourceOptions options_;
  Device device_;
  DecodeErrorLog error_log_;
  ReconnectListener observer_;
  std::unique_ptr<FrameSource> source_;
};

std::vector<ParamIssue> check_decode(const StageParams& params) {
  std::vector<ParamIssue> issues;
  if (const auto problem = rtsp_uri_problem(params.text("uri")); !problem.empty())
    issues.push_back({"uri", problem});
  if (const auto problem = v4l2_uri_problem(params.text("uri")); !problem.empty()) issues.push_back({"uri", problem});
  check_reconnect_params(params, issues);
  return issues;
}

}  // namespace

StageSpec decode_stage_spec() {
  StageSpec spec;
  spec.type = "decode";
  spec.help = "reads and decodes video: a file, rtsp://, v4l2:///dev/videoN or testsrc://WxH@FPS?noise=S&frames=N&loop=K";
  spec.role = StageRole::Source;
  spec.min_inputs = 0;
  spec.max_inputs = 0;
  spec.params = {
      {.name = "uri",
       .type = ParamType::String,
       .help = "what to read (the pipeline's top-level `input` sets it); rtsp://user:pass@host/path?transport=udp|tcp "
               "(tcp by default); v4l2:///dev/video0?size=1280x720&fps=30&format=mjpeg (each optional)"},
      {.name = "decode",
       .type = ParamType::Enum,
       .help = "where to decode files and streams: nvdec (the GPU's video decoder; frames stay on the GPU), software "
               "(FFmpeg on the CPU, then one upload), or auto: nvdec when the pipeline runs on a GPU and NVDEC takes the "
               "stream (8-bit 4:2:0 H.264, HEVC, VP9, AV1...), else software; the summary and stats say which and why",
       .default_value = std::string("auto"),
       .keywords = {"auto", "nvdec", "software"}},
      {.name = "on_error",
       .type = ParamType::Enum,
       .help = "a damaged packet or frame: skip it (counted, warned about) or stop the run with an error",
       .default_value = std::string("skip"),
       .keywords = {"skip", "stop"}},
      {.name = "timeout_ms",
       .type = ParamType::Int,
       .help = "network inputs: a read that gets nothing for this long loses the stream; an open may take twice as long",
       .default_value = std::int64_t{5000},
       .range = {.min = 100, .max = 600000}},
  };
  for (auto& param : reconnect_param_specs(
           "reopen a lost stream this many times in a row before the run fails (0: never); auto: forever for rtsp, "
           "rtmp, udp, rtp and srt, never for files, http, v4l2 and testsrc"))
    spec.params.push_back(std::move(param));
  spec.check = check_decode;
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    SourceOptions options;
    options.on_error = params.text("on_error") == "stop" ? OnDecodeError::Stop : OnDecodeError::Skip;
    const auto& decode = params.text("decode");
    options.decode = decode == "nvdec"  ? DecodeMode::Nvdec
                     : decode == "auto" ? DecodeMode::Auto
                                        : DecodeMode::Software;
    options.stop = context.stop;
    options.network_timeout_ms = static_cast<int>(params.integer("timeout_ms"));
    // auto: forever for live URIs, whose end means the sender went away; off for files and
    // everything else, whose end is the end of the video.
    options.reconnect = reconnect_policy(params, is_live_uri(params.text("uri")));
    // Queued, in the slots, one in the graph's hands and one the source is pushing.
    options.frames_held = context.queue_depth + context.slots + 2;
    options.confined = context.confinement;
    return std::make_unique<DecodeStage>(params.text("uri"), std::move(options), context.device,
                                         context.reconnect_observer);
  };
  return spec;
}

}  // namespace fp
