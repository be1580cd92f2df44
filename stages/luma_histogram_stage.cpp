#include "stages/luma_histogram_stage.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "cpu/luma_histogram.hpp"

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
    out_.open(path_, std::ios::out | std::ios::trunc);
    if (!out_) throw std::runtime_error(fmt::format("{}: cannot open for writing: {}", path_, std::strerror(errno)));
    if (format_ == RowFormat::Csv) {
      out_ << "frame,pts,time,mean,otsu";
      for (int i = 0; i < 256; ++i) out_ << ",b" << i;
      out_ << '\n';
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
    if (!out_.is_open()) return;
    out_.flush();
    const bool ok = static_cast<bool>(out_);
    out_.close();
    if (!ok) throw std::runtime_error(fmt::format("{}: write failed", path_));
  }

 private:
  void write_row(const Frame& frame, const cpu::LumaStats& stats) {
    const double time = frame.pts == kNoPts ? -1.0 : static_cast<double>(frame.pts) * frame.time_base.value();
    const long long pts = frame.pts == kNoPts ? -1 : frame.pts;
    if (format_ == RowFormat::Csv) {
      out_ << fmt::format("{},{},{:.6f},{:.4f},{},{}\n", frame.sequence, pts, time, stats.mean, stats.otsu,
                          fmt::join(stats.bins, ","));
    } else {
      out_ << fmt::format(R"({{"frame":{},"pts":{},"time":{:.6f},"mean":{:.4f},"otsu":{},"bins":[{}]}})", frame.sequence,
                          pts, time, stats.mean, stats.otsu, fmt::join(stats.bins, ","))
           << '\n';
    }
    if (!out_) throw std::runtime_error(fmt::format("{}: write failed", path_));
  }

  std::string path_;
  RowFormat format_;
  StageContext context_;
  std::ofstream out_;
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
