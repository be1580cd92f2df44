// make-set, denoise and score: one set, one run, one score.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

#include "tools/denoise_quality/commands.hpp"
#include "tools/denoise_quality/denoiser.hpp"
#include "tools/denoise_quality/sweep_results.hpp"
#include "tools/denoise_quality/synthetic_set.hpp"

namespace fp::quality {

void write_json_file(const std::filesystem::path& file, const std::string& text) {
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::trunc);
  out << text << "\n";
  out.close();
  if (!out) throw std::runtime_error(fmt::format("cannot write {}", file.string()));
}

int make_set_command(const MakeSetArgs& args) {
  const Size size = parse_size(args.size);
  if (args.frames < 2) throw UsageError("--frames: at least 2");
  make_set(args.dir, size, args.frames);
  fmt::print("{}: {} sequences x (clean + sigma {}) of {} frames {}x{}, and {}\n", args.dir.string(),
             sequence_names().size(), fmt::join(kSigmas, ", "), args.frames, size.width, size.height, kManifestFile);
  return 0;
}

int denoise_command(const DenoiseArgs& args) {
  const GrayVideo noisy = read_gray(args.in, parse_size(args.size));
  Method method;
  method.id = args.method;
  method.temporal = args.method == "temporal";
  method.params.spatial = {.h = args.h, .patch = args.patch, .search = args.search};
  method.params.frames = args.frames;
  method.params.temporal_search = args.temporal_search;
  method.params.motion = args.motion == "block";
  method.params.recursive = args.recursive;
  auto denoiser = make_denoiser(args.device);
  denoiser->load(noisy);
  write_gray(args.out, denoiser->run(method, args.h));
  return 0;
}

int score_command(const ScoreArgs& args) {
  const Size size = parse_size(args.size);
  const GrayVideo clean = read_gray(args.clean, size);
  const GrayVideo test = read_gray(args.test, size);
  const FrameRange range = args.range.resolve(clean.frames);
  const Score s = score(clean, test, range);
  if (args.json) {
    auto json = score_json(s);
    json["from"] = range.from;
    json["to"] = range.to;
    fmt::print("{}\n", json.dump(2));
  } else {
    fmt::print("frames {}..{}: PSNR {:.3f} dB  SSIM {:.4f}  flicker {:.3f} (clean {:.3f})\n", range.from, range.to,
               s.psnr, s.ssim, s.flicker, s.clean_flicker);
  }
  return 0;
}

}  // namespace fp::quality
