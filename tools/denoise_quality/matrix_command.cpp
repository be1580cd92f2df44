// matrix: the project's NL-means ops (spatial, and temporal in four configurations) over the
// whole set, h swept over a grid proportional to sigma, every run scored.
#include <fmt/format.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <memory>

#include "tools/denoise_quality/background_scorer.hpp"
#include "tools/denoise_quality/commands.hpp"
#include "tools/denoise_quality/denoiser.hpp"
#include "tools/denoise_quality/sweep_results.hpp"

namespace fp::quality {

namespace {

// h = factor x sigma: NL-means' h is on the noise's scale, so one grid of factors fits
// every sigma; the range brackets the usual h ~ sigma on both sides.
constexpr std::array<double, 6> kHFactors = {0.6, 0.8, 1.0, 1.25, 1.5, 2.0};

// Patch 7, search 21 (nlmeans' defaults) and a temporal window of 11 for all of them.
std::vector<Method> matrix_methods() {
  auto temporal = [](std::string id, std::string label, int frames, bool motion, bool recursive) {
    Method m{std::move(id), std::move(label), true, {}};
    m.params.frames = frames;
    m.params.motion = motion;
    m.params.recursive = recursive;
    return m;
  };
  std::vector<Method> methods;
  methods.push_back({"nlmeans", "nlmeans (spatial)", false, {}});
  methods.push_back(temporal("temporal_k2", "temporal K=2", 2, true, false));
  methods.push_back(temporal("temporal_k4", "temporal K=4", 4, true, false));
  methods.push_back(temporal("temporal_k4_nomotion", "K=4 no motion", 4, false, false));
  methods.push_back(temporal("temporal_k4_recursive", "K=4 recursive", 4, true, true));
  for (Method& m : methods) {
    m.params.spatial.patch = 7;
    m.params.spatial.search = 21;
    m.params.temporal_search = 11;
  }
  return methods;
}

nlohmann::json method_params(const Method& m) {
  nlohmann::json p = {{"op", m.temporal ? "temporal_nlmeans" : "nlmeans"},
                      {"patch", m.params.spatial.patch},
                      {"search", m.params.spatial.search}};
  if (m.temporal) {
    p["frames"] = m.params.frames;
    p["temporal_search"] = m.params.temporal_search;
    p["motion"] = m.params.motion ? "block" : "none";
    p["recursive"] = m.params.recursive;
  }
  return p;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int matrix_command(const MatrixArgs& args) {
  const SetInfo set = read_set_info(args.set_dir);
  const FrameRange range = args.range.resolve(set.frames);
  auto denoiser = make_denoiser(args.device);
  const auto methods = matrix_methods();
  SweepResults results("matrix", denoiser->description(), args.set_dir, set, range);
  for (const Method& m : methods) results.add_method({m.id, m.label, method_params(m)});
  fmt::print(stderr, "matrix on {}: {} sequences x {} sigmas x {} methods x {} h, {} frames {}x{} each\n",
             denoiser->description(), set.sequences.size(), set.sigmas.size(), methods.size(), kHFactors.size(),
             set.frames, set.size.width, set.size.height);

  const auto start = std::chrono::steady_clock::now();
  BackgroundScorer scorer(range);
  int done = 0;
  const int total = static_cast<int>(set.sequences.size() * set.sigmas.size());
  for (const std::string& sequence : set.sequences) {
    auto clean = std::make_shared<const GrayVideo>(read_gray(args.set_dir / clean_file(sequence), set.size));
    for (const int sigma : set.sigmas) {
      const GrayVideo noisy = read_gray(args.set_dir / noisy_file(sequence, sigma), set.size);
      check_range(*clean, noisy, range);
      results.add_noisy(sigma, sequence, score(*clean, noisy, range));
      denoiser->load(noisy);
      for (const Method& method : methods)
        for (std::size_t i = 0; i < kHFactors.size(); ++i) {
          const double h = kHFactors[i] * sigma;
          const Setting setting{fmt::format("h={:g}", h), {{"h", h}, {"h_over_sigma", kHFactors[i]}}};
          scorer.submit(clean, denoiser->run(method, h),
                        [&results, id = method.id, sigma, i, setting, sequence](const Score& s) {
                          results.add(id, sigma, static_cast<int>(i), setting, sequence, s);
                        });
        }
      fmt::print(stderr, "[{}/{}] {} sigma {} denoised ({:.1f} s so far)\n", ++done, total, sequence, sigma,
                 seconds_since(start));
    }
  }
  scorer.finish();
  write_json_file(args.json, results.to_json().dump(2));
  results.print_picks(stdout);
  fmt::print("{} runs in {:.1f} s; all scores in {}\n", total * methods.size() * kHFactors.size(),
             seconds_since(start), args.json.string());
  return 0;
}

}  // namespace fp::quality
