#include "stages/decode_stage.hpp"

#include "media/frame_source.hpp"

namespace fp {

namespace {

class DecodeStage final : public SourceStage {
 public:
  explicit DecodeStage(std::string uri) : uri_(std::move(uri)) {}

  VideoInfo open() override {
    source_ = open_source(uri_);
    return source_->info();
  }
  std::optional<Frame> read() override { return source_->read(); }
  std::string decoder_name() const override { return source_ ? source_->decoder_name() : "none"; }
  void interrupt() override {
    if (source_) source_->interrupt();
  }

 private:
  std::string uri_;
  std::unique_ptr<FrameSource> source_;
};

}  // namespace

StageSpec decode_stage_spec() {
  StageSpec spec;
  spec.type = "decode";
  spec.help = "reads and decodes video: a file, rtsp://, v4l2:///dev/videoN or testsrc://WxH@FPS?noise=S&frames=N";
  spec.role = StageRole::Source;
  spec.min_inputs = 0;
  spec.max_inputs = 0;
  spec.params = {
      {.name = "uri", .type = ParamType::String, .help = "what to read (the pipeline's top-level `input` sets it)"},
  };
  spec.create = [](const StageParams& params, const StageContext&) -> std::unique_ptr<Stage> {
    return std::make_unique<DecodeStage>(params.text("uri"));
  };
  return spec;
}

}  // namespace fp
