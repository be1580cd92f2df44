#include "stages/luma_histogram_stage.hpp"

#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>

#include <memory>

#include "cpu/frame_ops.hpp"
#include "cuda/frame_ops.hpp"
#include "stages/backend.hpp"
#include "stages/text_output.hpp"

namespace fp {

namespace {

enum class RowFormat { Jsonl, Csv };

// "auto" follows the extension: .csv is CSV, anything else JSON Lines.
RowFormat resolve_format(const std::string& format, const std::string& path) {
  if (format == "csv") return RowFormat::Csv;
  if (format == "jsonl") return RowFormat::Jsonl;
  return std::filesystem::path(path).extension() == ".csv" ? RowFormat::Csv : RowFormat::Jsonl;
}

class LumaHistogramStage final : public ProcessStage {
 public:
  LumaHistogramStage(std::string path, RowFormat format, StageContext context)
      : path_(std::move(path)), discard_(path_.empty() || path_ == "null"), format_(format), context_(std::move(context)) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    // "null" is no file, as for encode: the rows are made (a later stage's Otsu reads the
    // histogram) and written nowhere. (It used to create a file named null, or in serve
    // to open /dev/null beneath the output root and fail every stream.)
    if (!discard_) out_.open(path_, context_.confinement ? &context_.confinement->output_root : nullptr);
    if (format_ == RowFormat::Csv) {
      std::string header = "frame,pts,time,mean,otsu";
      for (int i = 0; i < 256; ++i) header += fmt::format(",b{}", i);
      write(header + '\n');
    }
    // The op hands each frame's stats over as soon as they are known: on the CPU at once, on
    // a GPU when the slot's work is complete (rows stay in frame order either way).
    auto receiver = [this](const Frame& timing, const ops::LumaStats& stats) { write_row(timing, stats); };
    const auto shape = op_shape(context_, inputs.front());
    op_ = context_.device.kind == DeviceKind::Cuda ? FP_CUDA_ONLY(cuda::make_luma_histogram_op(shape, receiver))
                                                   : cpu::make_luma_histogram_op(receiver);
    return inputs.front();
  }

  // Passes the frame through untouched (the planes are shared, not copied).
  Frame process(std::span<const Frame> inputs, FrameContext& frame_context) override {
    Frame out = inputs[0];
    op_->run(inputs, out, frame_context);
    return out;
  }

  void finish() override {
    if (!error_.empty()) throw std::runtime_error(error_);
    out_.close();
  }

  bool has_side_output() const override { return true; }
  bool side_output_failed() const override { return !error_.empty(); }

 private:
  void write_row(const Frame& frame, const ops::LumaStats& stats) {
    const double time = frame.pts == kNoPts ? -1.0 : static_cast<double>(frame.pts) * frame.time_base.value();
    const long long pts = frame.pts == kNoPts ? -1 : frame.pts;
    if (format_ == RowFormat::Csv) {
      write(fmt::format("{},{},{:.6f},{:.4f},{},{}\n", frame.sequence, pts, time, stats.mean, stats.otsu,
                        fmt::join(stats.bins, ",")));
    } else {
      write(fmt::format(R"({{"frame":{},"pts":{},"time":{:.6f},"mean":{:.4f},"otsu":{},"bins":[{}]}})"
                        "\n",
                        frame.sequence, pts, time, stats.mean, stats.otsu, fmt::join(stats.bins, ",")));
    }
  }

  // A failed write closes the file and is kept for finish(): the frames go on through the
  // graph, so the run's other outputs are complete.
  void write(const std::string& text) {
    if (discard_ || !error_.empty()) return;
    try {
      out_.write(text);
    } catch (const std::exception& e) {
      error_ = e.what();
      out_.abandon();
      spdlog::error("{}: {}; the other outputs go on", context_.id, error_);
    }
  }

  std::string path_;
  bool discard_;  // output null: no file
  RowFormat format_;
  StageContext context_;
  TextOutput out_;
  std::string error_;  // the first write failure; the rows stop there
  std::unique_ptr<ops::FrameOp> op_;
};

}  // namespace

StageSpec luma_histogram_stage_spec() {
  StageSpec spec;
  spec.type = "luma_histogram";
  spec.help = "writes 256 luma bins, the mean and the Otsu threshold of every frame; passes frames through";
  // Reads the luma and passes the whole frame through.
  spec.planes = {.luma = PlaneOrigin::FirstInput, .chroma = PlaneOrigin::FirstInput, .reads_chroma = false};
  spec.params = {
      {.name = "output", .type = ParamType::Path, .help = "file for one row per frame (.jsonl or .csv); null: none"},
      {.name = "format", .type = ParamType::Enum, .help = "row format; auto follows the output's extension",
       .default_value = std::string("auto"), .keywords = {"auto", "jsonl", "csv"}},
  };
  spec.create = [](const StageParams& params, const StageContext& context) -> std::unique_ptr<Stage> {
    const auto& path = params.text("output");
    return std::make_unique<LumaHistogramStage>(path, resolve_format(params.text("format"), path), context);
  };
  return spec;
}

}  // namespace fp
