#include "stages/encode_stage.hpp"

#include "media/frame_sink.hpp"

namespace fp {

namespace {

class EncodeStage final : public SinkStage {
 public:
  explicit EncodeStage(SinkOptions options) : options_(std::move(options)) {}

  void open(const VideoInfo& input) override { sink_ = open_sink(options_, input); }
  void write(const Frame& frame) override { sink_->write(frame); }
  void close() override {
    if (sink_) sink_->close();
  }
  std::string encoder_name() const override { return sink_ ? sink_->encoder_name() : "none"; }
  std::string output_path() const override { return options_.path; }

 private:
  SinkOptions options_;
  std::unique_ptr<FrameSink> sink_;
};

}  // namespace

StageSpec encode_stage_spec() {
  StageSpec spec;
  spec.type = "encode";
  spec.help = "encodes frames into a file: .mp4/.mkv/.ts (H.264, libx264), .y4m (raw), or null (discard)";
  spec.role = StageRole::Sink;
  spec.params = {
      {.name = "output", .type = ParamType::Path, .help = "output file; its extension picks the container; null discards"},
      {.name = "codec", .type = ParamType::Enum, .help = "video codec (rawvideo is implied by .y4m)",
       .default_value = std::string("h264"), .keywords = {"h264", "rawvideo"}},
      {.name = "crf", .type = ParamType::Int, .help = "H.264 constant rate factor: lower is better quality",
       .default_value = std::int64_t{18}, .range = {.min = 0, .max = 51}},
      {.name = "preset", .type = ParamType::Enum, .help = "H.264 speed/size trade-off",
       .default_value = std::string("veryfast"),
       .keywords = {"ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow"}},
      {.name = "latency", .type = ParamType::Enum,
       .help = "low: x264 tune=zerolatency, no B-frames, a key frame every second, packets written at once (live outputs)",
       .default_value = std::string("normal"), .keywords = {"normal", "low"}},
  };
  spec.check = [](const StageParams& params) {
    std::vector<ParamIssue> issues;
    if (auto reason = check_sink_path(params.text("output"), params.text("codec")); !reason.empty())
      issues.push_back({"output", reason});
    return issues;
  };
  spec.create = [](const StageParams& params, const StageContext&) -> std::unique_ptr<Stage> {
    SinkOptions options;
    options.path = params.text("output");
    options.codec = params.text("codec");
    options.crf = static_cast<int>(params.integer("crf"));
    options.preset = params.text("preset");
    options.low_latency = params.text("latency") == "low";
    return std::make_unique<EncodeStage>(std::move(options));
  };
  return spec;
}

}  // namespace fp
