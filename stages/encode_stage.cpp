#include "stages/encode_stage.hpp"

#include "media/frame_sink.hpp"
#include "media/output_target.hpp"
#include "media/stream_uri.hpp"
#include "stages/reconnect_params.hpp"

namespace fp {

namespace {

class EncodeStage final : public SinkStage {
 public:
  EncodeStage(SinkOptions options, bool drop_oldest) : options_(std::move(options)), drop_oldest_(drop_oldest) {}

  void open(const VideoInfo& input) override {
    options_.on_reconnect = reconnect_logger(mask_credentials(options_.path), options_.reconnect);
    sink_ = open_sink(options_, input);
  }
  void write(const Frame& frame) override { sink_->write(frame); }
  void close() override {
    if (sink_) sink_->close();
  }
  std::string encoder_name() const override { return sink_ ? sink_->encoder_name() : "none"; }
  std::string output_path() const override { return mask_credentials(options_.path); }
  bool drops_when_behind() const override { return drop_oldest_; }
  std::optional<ReconnectStats> reconnect_stats() const override {
    const ReconnectStats* stats = sink_ ? sink_->reconnect_stats() : nullptr;
    if (stats == nullptr) return std::nullopt;
    return *stats;
  }

 private:
  SinkOptions options_;
  bool drop_oldest_;
  std::unique_ptr<FrameSink> sink_;
};

// A receiver that calls back or a server that restarts: RTSP publish, and SRT calling a
// listener. UDP never notices a missing receiver; an SRT listener would wait for its next
// caller inside write(); files and HLS fail for reasons that waiting does not mend.
bool reconnects_by_default(const std::string& output) {
  try {
    const OutputTarget target = parse_output_target(output);
    return target.kind == OutputKind::Rtsp ||
           (target.kind == OutputKind::Srt && target.url.find("mode=listener") == std::string::npos);
  } catch (const std::invalid_argument&) {
    return false;
  }
}

}  // namespace

StageSpec encode_stage_spec() {
  StageSpec spec;
  spec.type = "encode";
  spec.help = "encodes frames (H.264, libx264) into a file (.mp4/.mkv/.ts), an HLS playlist (.m3u8), a network "
              "stream (udp://, srt://, rtsp:// publish), raw .y4m, or null (discard)";
  spec.role = StageRole::Sink;
  spec.params = {
      {.name = "output", .type = ParamType::Path,
       .help = "output file (its extension picks the container), .m3u8 (HLS), udp://host:port or srt://host:port "
               "(MPEG-TS), rtsp://host:port/path?transport=tcp|udp (publish); null discards"},
      {.name = "codec", .type = ParamType::Enum,
       .help = "h264 (libx264 on the CPU), h264_nvenc or hevc_nvenc (the GPU's video encoder, NVENC: GeForce/RTX, L4, "
               "A10...; fails where there is none, e.g. the H100), auto (h264_nvenc where it opens, else libx264, "
               "saying why), rawvideo (implied by .y4m)",
       .default_value = std::string("h264"), .keywords = {"h264", "h264_nvenc", "hevc_nvenc", "auto", "rawvideo"}},
      {.name = "crf", .type = ParamType::Int, .help = "H.264 constant rate factor: lower is better quality",
       .default_value = std::int64_t{18}, .range = {.min = 0, .max = 51}},
      {.name = "preset", .type = ParamType::Enum, .help = "H.264 speed/size trade-off",
       .default_value = std::string("veryfast"),
       .keywords = {"ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"}},
      {.name = "threads", .type = ParamType::Int,
       .help = "libx264's threads; 0: a share of the cores this process may use, among the encoders open when "
               "it opens (cores / encoders, at least 1)",
       .default_value = std::int64_t{0}, .range = {.min = 0, .max = 128}},
      {.name = "latency", .type = ParamType::Enum,
       .help = "low: x264 tune=zerolatency, no B-frames, intra refresh every second, packets written at once (live outputs)",
       .default_value = std::string("normal"), .keywords = {"normal", "low"}},
      {.name = "drop", .type = ParamType::Enum,
       .help = "when this output falls behind (a slow receiver or encoder): never (the graph waits, and every output "
               "with it) or oldest (its oldest queued frame is dropped and counted; the other outputs go on)",
       .default_value = std::string("never"), .keywords = {"never", "oldest"}},
      {.name = "timeout_ms", .type = ParamType::Int,
       .help = "network outputs: a connect or write that makes no progress this long fails the output",
       .default_value = std::int64_t{5000}, .range = {.min = 100, .max = 600000}},
      {.name = "hls.segment_seconds", .type = ParamType::Float,
       .help = ".m3u8 outputs: length of a segment; each starts with a key frame",
       .default_value = 2.0, .range = {.min = 0.1, .max = 60}},
      {.name = "hls.playlist_size", .type = ParamType::Int,
       .help = ".m3u8 outputs: segments in the playlist, older ones deleted (a live window); 0 keeps them all",
       .default_value = std::int64_t{5}, .range = {.min = 0, .max = 100000}},
  };
  for (auto& param : reconnect_param_specs(
           "network outputs: connect again this many times in a row when the receiver goes away, before the output "
           "fails (0: never); auto: forever for rtsp and srt (calling a listener), never for the others"))
    spec.params.push_back(std::move(param));
  spec.check = [](const StageParams& params) {
    std::vector<ParamIssue> issues;
    check_reconnect_params(params, issues);
    if (auto reason = output_target_problem(params.text("output"), params.text("codec")); !reason.empty())
      issues.push_back({"output", reason});
    return issues;
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    SinkOptions options;
    options.path = params.text("output");
    options.codec = params.text("codec");
    options.crf = static_cast<int>(params.integer("crf"));
    options.preset = params.text("preset");
    options.threads = static_cast<int>(params.integer("threads"));
    options.low_latency = params.text("latency") == "low";
    options.network_timeout_ms = static_cast<int>(params.integer("timeout_ms"));
    options.hls_segment_seconds = params.real("hls.segment_seconds");
    options.hls_playlist_size = static_cast<int>(params.integer("hls.playlist_size"));
    options.stop = context.stop;
    options.confined = context.confinement;
    options.reconnect = reconnect_policy(params, reconnects_by_default(options.path));
    return std::make_unique<EncodeStage>(std::move(options), params.text("drop") == "oldest");
  };
  return spec;
}

}  // namespace fp
