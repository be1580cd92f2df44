// The subcommands of denoise-quality (main.cpp declares their options), one file each.
#pragma once

#include <filesystem>
#include <string>

#include "tools/denoise_quality/gray_video.hpp"
#include "tools/denoise_quality/metrics.hpp"

namespace fp::quality {

inline constexpr int kUsageError = 2;  // as framepipe: 0 ok, 1 runtime failure, 2 usage

// The frames scored: from `from` to `to` inclusive; to < 0 means the last frame.
struct RangeArgs {
  int from = 5;
  int to = -1;
  FrameRange resolve(int frames) const { return {from, to < 0 ? frames - 1 : to}; }
};

struct MakeSetArgs {
  std::filesystem::path dir;
  std::string size = "960x540";
  int frames = 40;
};
int make_set_command(const MakeSetArgs& args);

struct DenoiseArgs {
  std::filesystem::path in;
  std::filesystem::path out;
  std::string size;
  std::string device = "cpu";
  std::string method;  // nlmeans | temporal
  double h = 10.0;
  int patch = 7;
  int search = 21;
  int frames = 2;
  int temporal_search = 11;
  std::string motion = "block";  // block | none
  bool recursive = false;
};
int denoise_command(const DenoiseArgs& args);

struct ScoreArgs {
  std::filesystem::path clean;
  std::filesystem::path test;
  std::string size;
  RangeArgs range;
  bool json = false;
};
int score_command(const ScoreArgs& args);

struct MatrixArgs {
  std::filesystem::path set_dir;
  std::string device = "cuda:0";
  std::filesystem::path json;
  RangeArgs range;
};
int matrix_command(const MatrixArgs& args);

struct FfmpegMatrixArgs {
  std::filesystem::path set_dir;
  std::filesystem::path json;
  std::string ffmpeg = "ffmpeg";
  RangeArgs range;
};
int ffmpeg_matrix_command(const FfmpegMatrixArgs& args);

struct TableArgs {
  std::filesystem::path gpu_json;
  std::filesystem::path ffmpeg_json;
  std::filesystem::path markdown;
};
int table_command(const TableArgs& args);

// Writes `json` (indented) to `file`; throws on failure.
void write_json_file(const std::filesystem::path& file, const std::string& text);

}  // namespace fp::quality
