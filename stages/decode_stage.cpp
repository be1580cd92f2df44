#include "stages/decode_stage.hpp"

#include <spdlog/spdlog.h>

#include "media/frame_source.hpp"
#include "stages/decode_error_log.hpp"
#include "stages/stage_memory.hpp"

namespace fp {

namespace {

class DecodeStage final : public SourceStage {
 public:
  DecodeStage(std::string uri, OnDecodeError on_error, Device device, const std::atomic<bool>* stop)
      : uri_(std::move(uri)), on_error_(on_error), device_(device), stop_(stop), error_log_(uri_) {}

  VideoInfo open() override {
    // Decoded frames go to the GPU next when the pipeline runs there.
    source_ = open_source(uri_, host_staging_memory_for(device_), on_error_, stop_);
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

 private:
  std::string uri_;
  OnDecodeError on_error_;
  Device device_;
  const std::atomic<bool>* stop_;
  DecodeErrorLog error_log_;
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
      {.name = "on_error",
       .type = ParamType::Enum,
       .help = "a damaged packet or frame: skip it (counted, warned about) or stop the run with an error",
       .default_value = std::string("skip"),
       .keywords = {"skip", "stop"}},
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    const auto on_error = params.text("on_error") == "stop" ? OnDecodeError::Stop : OnDecodeError::Skip;
    return std::make_unique<DecodeStage>(params.text("uri"), on_error, context.device, context.stop);
  };
  return spec;
}

}  // namespace fp
