// denoise-quality: the denoising quality measurement of issue 34 (§3), made by the project
// from synthetic sequences, no downloads. This file declares the command line (CLI11); the
// commands live in their own files. tools/denoise-quality.sh runs the whole measurement.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <functional>

#include "tools/denoise_quality/commands.hpp"

namespace {

using namespace fp::quality;

void add_range_options(CLI::App& cmd, RangeArgs& range) {
  cmd.add_option("--from", range.from, "First frame scored (default 5: the temporal history has filled by then)")
      ->check(CLI::Range(1, 1000000));
  cmd.add_option("--to", range.to, "Last frame scored, inclusive (default: the last frame)")
      ->check(CLI::Range(1, 1000000));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"denoise-quality: measures denoising quality (PSNR, SSIM, flicker) on a synthetic set of sequences",
               "denoise-quality"};
  app.require_subcommand(1);
  std::function<int()> command;

  MakeSetArgs make_set;
  auto* make_set_cmd = app.add_subcommand(
      "make-set", "Write the synthetic set: DIR/NAME.clean.gray and DIR/NAME.sSIGMA.gray (raw 8-bit gray frames, "
                  "sigma 10, 20, 30) for 7 sequences, and DIR/set.json");
  make_set_cmd->add_option("DIR", make_set.dir, "Folder to write (created if missing)")->required();
  make_set_cmd->add_option("--frames", make_set.frames, "Frames a sequence")->check(CLI::Range(2, 100000));
  make_set_cmd->add_option("--size", make_set.size, "Frame size WIDTHxHEIGHT");
  make_set_cmd->callback([&] { command = [&] { return make_set_command(make_set); }; });

  DenoiseArgs denoise;
  auto* denoise_cmd = app.add_subcommand("denoise", "Denoise a raw gray video with framepipe's nlmeans or "
                                                    "temporal_nlmeans op, frame after frame");
  denoise_cmd->add_option("IN", denoise.in, "Noisy raw gray video")->required();
  denoise_cmd->add_option("OUT", denoise.out, "Denoised raw gray video to write")->required();
  denoise_cmd->add_option("--size", denoise.size, "Frame size WIDTHxHEIGHT")->required();
  denoise_cmd->add_option("--device", denoise.device, "cpu, cuda or cuda:N (default cpu)");
  denoise_cmd->add_option("--method", denoise.method, "nlmeans (spatial) or temporal (temporal_nlmeans)")
      ->required()
      ->check(CLI::IsMember({"nlmeans", "temporal"}));
  denoise_cmd->add_option("--h", denoise.h, "Filtering strength (default 10)")->check(CLI::Range(1e-6, 1e6));
  denoise_cmd->add_option("--patch", denoise.patch, "Patch side, odd (default 7)")->check(CLI::Range(1, 999));
  denoise_cmd->add_option("--search", denoise.search, "Search window side in the current frame, odd (default 21)")
      ->check(CLI::Range(1, 999));
  denoise_cmd->add_option("--frames", denoise.frames, "temporal: previous frames searched (default 2)")
      ->check(CLI::Range(0, 4));
  denoise_cmd->add_option("--temporal-search", denoise.temporal_search,
                          "temporal: window side in each previous frame, odd (default 11)")
      ->check(CLI::Range(1, 999));
  denoise_cmd->add_option("--motion", denoise.motion, "temporal: block (motion search) or none (default block)")
      ->check(CLI::IsMember({"block", "none"}));
  denoise_cmd->add_flag("--recursive", denoise.recursive, "temporal: search the previous outputs, not inputs");
  denoise_cmd->callback([&] { command = [&] { return denoise_command(denoise); }; });

  ScoreArgs score;
  auto* score_cmd = app.add_subcommand("score", "Score a video against its clean original: mean PSNR, mean SSIM, "
                                                "flicker (mean |f(n) - f(n-1)|) of both");
  score_cmd->add_option("CLEAN", score.clean, "Clean raw gray video")->required();
  score_cmd->add_option("TEST", score.test, "Raw gray video to score")->required();
  score_cmd->add_option("--size", score.size, "Frame size WIDTHxHEIGHT")->required();
  add_range_options(*score_cmd, score.range);
  score_cmd->add_flag("--json", score.json, "Print JSON");
  score_cmd->callback([&] { command = [&] { return score_command(score); }; });

  MatrixArgs matrix;
  auto* matrix_cmd = app.add_subcommand(
      "matrix", "Every sequence and sigma of a set through spatial nlmeans and temporal_nlmeans (K=2, K=4, K=4 "
                "without motion, K=4 recursive), h = 0.6 .. 2 sigma; picks per method and sigma the h of best mean "
                "PSNR over the sequences");
  matrix_cmd->add_option("SETDIR", matrix.set_dir, "A folder written by make-set")->required();
  matrix_cmd->add_option("--device", matrix.device, "cpu, cuda or cuda:N (default cuda:0)");
  matrix_cmd->add_option("--json", matrix.json, "Write every score and the picks here")->required();
  add_range_options(*matrix_cmd, matrix.range);
  matrix_cmd->callback([&] { command = [&] { return matrix_command(matrix); }; });

  FfmpegMatrixArgs ffmpeg;
  auto* ffmpeg_cmd = app.add_subcommand(
      "ffmpeg-matrix", "The same with FFmpeg's hqdn3d and atadenoise (run by the ffmpeg program) over a grid of "
                       "strengths each");
  ffmpeg_cmd->add_option("SETDIR", ffmpeg.set_dir, "A folder written by make-set")->required();
  ffmpeg_cmd->add_option("--json", ffmpeg.json, "Write every score and the picks here")->required();
  ffmpeg_cmd->add_option("--ffmpeg", ffmpeg.ffmpeg, "The ffmpeg program (default: ffmpeg from PATH)");
  add_range_options(*ffmpeg_cmd, ffmpeg.range);
  ffmpeg_cmd->callback([&] { command = [&] { return ffmpeg_matrix_command(ffmpeg); }; });

  TableArgs table;
  auto* table_cmd = app.add_subcommand("table", "Merge the JSON of matrix and ffmpeg-matrix into a markdown report");
  table_cmd->add_option("GPU_JSON", table.gpu_json, "The JSON of matrix")->required();
  table_cmd->add_option("FFMPEG_JSON", table.ffmpeg_json, "The JSON of ffmpeg-matrix")->required();
  table_cmd->add_option("--markdown", table.markdown, "Markdown file to write")->required();
  table_cmd->callback([&] { command = [&] { return table_command(table); }; });

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);  // --help
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kUsageError;
  }
  try {
    return command();
  } catch (const UsageError& e) {
    fmt::print(stderr, "denoise-quality: error: {}\n", e.what());
    return kUsageError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "denoise-quality: error: {}\n", e.what());
    return 1;
  }
}
