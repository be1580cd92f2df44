#include "stages/luma_histogram_stage.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "cpu/luma_histogram.hpp"

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
  LumaHistogramStage(std::string path, RowFormat format) : path_(std::move(path)), format_(format) {}

  VideoInfo prepare(std::span<const VideoInfo> inputs) override {
    out_.open(path_, std::ios::out | std::ios::trunc);
    if (!out_) throw std::runtime_error(fmt::format("{}: cannot open for writing: {}", path_, std::strerror(errno)));
    if (format_ == RowFormat::Csv) {
      out_ << "frame,pts,time,mean,otsu";
      for (int i = 0; i < 256; ++i) out_ << ",b" << i;
      out_ << '\n';
    }
    return inputs.front();
  }

  // Passes the frame through untouched (the planes are shared, not copied).
  Frame process(std::span<const Frame> inputs) override {
    const Frame& frame = inputs[0];
    const auto stats = cpu::luma_stats(frame.luma().cview());
    write_row(frame, stats);
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
  std::ofstream out_;
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
  spec.create = [](const StageParams& params, const StageContext&) -> std::unique_ptr<Stage> {
    const auto& path = params.text("output");
    return std::make_unique<LumaHistogramStage>(path, resolve_format(params.text("format"), path));
  };
  return spec;
}

}  // namespace fp
