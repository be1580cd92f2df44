#include "stages/decode_stage.hpp"

#include "media/frame_source.hpp"
#include "stages/stage_memory.hpp"

namespace fp {

namespace {

class DecodeStage final : public SourceStage {
 public:
  DecodeStage(std::string uri, Device device, const std::atomic<bool>* stop)
      : uri_(std::move(uri)), device_(device), stop_(stop) {}

  VideoInfo open() override {
    // Decoded frames go to the GPU next when the pipeline runs there.
    source_ = open_source(uri_, host_staging_memory_for(device_), stop_);
    return source_->info();
  }
  std::optional<Frame> read() override { return source_->read(); }
  std::string decoder_name() const override { return source_ ? source_->decoder_name() : "none"; }
  void interrupt() override {
    if (source_) source_->interrupt();
  }

 private:
  std::string uri_;
  Device device_;
  const std::atomic<bool>* stop_;
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
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    return std::make_unique<DecodeStage>(params.text("uri"), context.device, context.stop);
  };
  return spec;
}

}  // namespace fp
