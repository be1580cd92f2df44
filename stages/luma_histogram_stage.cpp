#include "stages/luma_histogram_stage.hpp"

#include <fmt/format.h>

#include <spdlog/spdlog.h>

#include <filesystem>
#include <stdexcept>

#include "cpu/luma_histogram.hpp"
#include "stages/text_output.hpp"

#ifdef FRAMEPIPE_WITH_CUDA
#include <algorithm>
#include <memory>

#include "cuda/cuda_check.hpp"
#include "cuda/device_image.hpp"
#include "stages/luma_stats_slots.hpp"
#endif

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
      : path_(std::move(path)), format_(format), context_(std::move(context)) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    out_.open(path_);
    if (format_ == RowFormat::Csv) {
      std::string header = "frame,pts,time,mean,otsu";
      for (int i = 0; i < 256; ++i) header += fmt::format(",b{}", i);
      write(header + '\n');
    }
#ifdef FRAMEPIPE_WITH_CUDA
    if (context_.device.kind == DeviceKind::Cuda) {
      const auto& info = inputs.front();
      stats_ = std::make_unique<LumaStatsSlots>(context_.slots, info.width, info.height);
      readback_ = cuda::PinnedArray<cuda::LumaStatsDevice>(static_cast<std::size_t>(context_.slots));
    }
#endif
    return inputs.front();
  }

  // Passes the frame through untouched (the planes are shared, not copied).
  Frame process(std::span<const Frame> inputs, FrameContext& frame_context) override {
    const Frame& frame = inputs[0];
#ifdef FRAMEPIPE_WITH_CUDA
    if (context_.device.kind == DeviceKind::Cuda) {
      // The stats stay on the device; one small asynchronous copy brings them into pinned
      // memory, and the row is written once the slot's work is complete.
      auto* device_stats = stats_->compute(frame.luma().cview(), frame_context.slot, frame_context.stream);
      auto* host_stats = readback_.get() + frame_context.slot;
      FP_CUDA_CHECK(cudaMemcpyAsync(host_stats, device_stats, sizeof(*host_stats), cudaMemcpyDeviceToHost,
                                    frame_context.stream));
      Frame timing;
      timing.copy_timing_from(frame);
      frame_context.when_complete([this, timing, host_stats] {
        cpu::LumaStats stats;
        std::copy(std::begin(host_stats->bins), std::end(host_stats->bins), stats.bins.begin());
        stats.mean = host_stats->mean;
        stats.otsu = host_stats->otsu;
        write_row(timing, stats);
      });
      return frame;
    }
#endif
    (void)frame_context;
    write_row(frame, cpu::luma_stats(frame.luma().cview()));
    return frame;
  }

  void finish() override {
    if (!error_.empty()) throw std::runtime_error(error_);
    out_.close();
  }

  bool has_side_output() const override { return true; }
  bool side_output_failed() const override { return !error_.empty(); }

 private:
  void write_row(const Frame& frame, const cpu::LumaStats& stats) {
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
    if (!error_.empty()) return;
    try {
      out_.write(text);
    } catch (const std::exception& e) {
      error_ = e.what();
      out_.abandon();
      spdlog::error("{}: {}; the other outputs go on", context_.id, error_);
    }
  }

  std::string path_;
  RowFormat format_;
  StageContext context_;
  TextOutput out_;
  std::string error_;  // the first write failure; the rows stop there
#ifdef FRAMEPIPE_WITH_CUDA
  std::unique_ptr<LumaStatsSlots> stats_;
  cuda::PinnedArray<cuda::LumaStatsDevice> readback_;  // one result per slot
#endif
};

}  // namespace

StageSpec luma_histogram_stage_spec() {
  StageSpec spec;
  spec.type = "luma_histogram";
  spec.help = "writes 256 luma bins, the mean and the Otsu threshold of every frame; passes frames through";
  spec.params = {
      {.name = "output", .type = ParamType::Path, .help = "file for one row per frame (.jsonl or .csv)"},
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
