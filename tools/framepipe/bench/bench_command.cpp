// `framepipe bench`: every CUDA kernel timed with CUDA events (median and minimum of many
// runs after a warm-up), with what bounds it (SM, memory or SFU throughput as a percentage of
// the peak: by Nsight Compute, or estimated), printed as a table and written as JSON.
#include <fmt/format.h>

#include <cuda_profiler_api.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "cuda/device_query.hpp"
#include "cuda/spin.hpp"
#include "cuda/stream.hpp"
#include "pipeline/definition/config_error.hpp"
#include "tools/framepipe/bench/bench_case.hpp"
#include "tools/framepipe/bench/bench_command.hpp"
#include "tools/framepipe/bench/ncu_csv.hpp"
#include "tools/framepipe/bench/ncu_runner.hpp"
#include "tools/framepipe/bench/scratch_folder.hpp"
#include "tools/framepipe/commands.hpp"

namespace fp::cli {

namespace {

namespace fs = std::filesystem;

std::pair<int, int> parse_size(const std::string& text) {
  int w = 0;
  int h = 0;
  char x = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w <= 0 || h <= 0)
    throw UsageError(fmt::format("--size {}: expected WIDTHxHEIGHT, e.g. 1920x1080", text));
  return {w, h};
}

nlohmann::ordered_json to_json(const bench::BenchResult& r, const std::vector<bench::KernelBounds>& bounds,
                               bool estimated) {
  nlohmann::ordered_json j;
  j["stage"] = r.bench.stage;
  j["width"] = r.bench.width;
  j["height"] = r.bench.height;
  j["parameters"] = r.bench.parameters;
  j["runs"] = r.runs;
  j["median_ms"] = r.median_ms;
  j["min_ms"] = r.min_ms;
  j["mpixel_per_s"] = r.mpixel_per_s();
  if (r.gbyte_per_s() > 0) j["gbyte_per_s"] = r.gbyte_per_s();
  bench::add_bounds_json(j, bounds, estimated);
  return j;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string self_executable() {
  std::error_code ec;
  const auto path = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot find this program's own path (/proc/self/exe) to run it under ncu");
  return path.string();
}

// `--ncu-probe`: each case's kernels once, each case after the marker kernel, between
// cudaProfilerStart and Stop, so that ncu (run with --profile-from-start off) profiles them
// and nothing of the set-up (uploads, workspace initialisation). Prints nothing.
int probe_command(const BenchArguments& args) {
  for (const auto& size_text : args.sizes) {
    const auto [width, height] = parse_size(size_text);
    const auto cases = bench::make_bench_cases(width, height, args.stages, args.thinning_tilings);
    cuda::Stream stream;
    stream.synchronize();
    cuda::check(cudaProfilerStart(), "cudaProfilerStart");
    for (const auto& bench_case : cases) {
      cuda::spin(0.0, stream.get());  // kCaseMarkerKernel
      bench_case.run(stream.get());
      stream.synchronize();
    }
    cuda::check(cudaProfilerStop(), "cudaProfilerStop");
  }
  return kOk;
}

// Each case's kernels at one size, profiled by ncu in a child `framepipe bench --ncu-probe`;
// nullopt, with the reason in `why`, when ncu gave nothing usable.
std::optional<std::vector<std::vector<bench::KernelBounds>>> ncu_bounds(const std::string& ncu,
                                                                        const BenchArguments& args,
                                                                        const std::string& size,
                                                                        std::size_t expected_cases, std::string& why) {
  std::optional<bench::ScratchFolder> dir;
  try {
    dir.emplace("ncu", "ncu's log");
  } catch (const std::runtime_error& e) {
    why = e.what();
    return std::nullopt;
  }
  const fs::path log = dir->path() / "ncu.csv";
  std::string metrics;
  for (const auto& m : bench::ncu_bound_metrics()) metrics += (metrics.empty() ? "" : ",") + m;
  std::vector<std::string> argv = {ncu,         "--csv",      "--print-units",  "base", "--profile-from-start",
                                   "off",       "--metrics",  metrics,          "--log-file", log.string(),
                                   self_executable(), "bench", "--ncu-probe", "--bounds", "estimate", "--size", size};
  for (const auto& stage : args.stages) {
    argv.push_back("--stage");
    argv.push_back(stage);
  }
  bench::ChildResult result;
  try {
    result = bench::run_with_timeout(argv, args.ncu_timeout);
  } catch (const std::exception& e) {
    why = e.what();
    return std::nullopt;
  }
  const std::string log_text = read_file(log);
  if (!args.ncu_log.empty()) {
    std::ofstream keep(args.ncu_log, std::ios::app);
    keep << log_text << result.output;
  }
  why = bench::ncu_failure(result, log_text + result.output, args.ncu_timeout);
  if (!why.empty()) return std::nullopt;
  try {
    // The CSV is in the log; the child's own output (nothing, normally) is read too, in case
    // an ncu version writes its report to stdout regardless.
    auto cases = bench::split_cases(bench::parse_ncu_csv(log_text + "\n" + result.output), bench::kCaseMarkerKernel);
    if (cases.size() != expected_cases) {
      why = fmt::format("ncu reported {} cases at {}, expected {}", cases.size(), size, expected_cases);
      return std::nullopt;
    }
    return cases;
  } catch (const std::exception& e) {
    why = e.what();
    return std::nullopt;
  }
}

}  // namespace

int bench_command(const BenchArguments& args) {
  if (args.bounds != "auto" && args.bounds != "ncu" && args.bounds != "estimate")
    throw UsageError(fmt::format("--bounds {}: expected auto, ncu or estimate", args.bounds));
  for (const auto& stage : args.stages) {
    const auto& known = bench::bench_stage_names();
    if (std::find(known.begin(), known.end(), stage) == known.end())
      throw UsageError(fmt::format("--stage {}: no such kernel to benchmark", stage));
  }
  if (cuda::device_count() == 0)
    throw UsageError("bench needs a CUDA device (" + cuda::runtime_summary() + ")");
  if (args.runs < 1) throw UsageError("--runs must be at least 1");
  std::vector<std::string> sizes = args.sizes;
  if (sizes.empty()) sizes = {"1280x720", "1920x1080", "3840x2160"};
  for (const auto& size : sizes) parse_size(size);
  if (args.ncu_probe) {
    BenchArguments probe = args;
    probe.sizes = sizes;
    return probe_command(probe);
  }
  const auto device = cuda::describe_device(0);
  const auto peaks = bench::device_peaks(0);

  std::optional<std::string> ncu;
  std::vector<std::string> warnings;
  auto warn = [&](std::string text) {
    fmt::print(stderr, "framepipe: warning: bounds: {}\n", text);
    warnings.push_back(std::move(text));
  };
  if (args.bounds != "estimate") {
    const char* path = std::getenv("PATH");
    ncu = bench::find_ncu(path ? path : "");
    if (!ncu && args.bounds == "ncu")
      warn("ncu not found on PATH nor at /usr/local/cuda/bin/ncu; the estimate instead");
  }

  fmt::print("framepipe bench on cuda:0 ({}), commit {}, median and min of {} runs after {} warm-up runs\n",
             device.name, FRAMEPIPE_GIT_COMMIT, args.runs, args.warmup);
  fmt::print("bound: the largest of SM, memory and SFU throughput, % of peak, of the case's longest kernel ({})\n",
             ncu ? "Nsight Compute: " + *ncu : "~: estimated from the model next to the case");
  fmt::print("{:<15} {:>10} {:<34} {:>11} {:>11} {:>9} {:>8}  {}\n", "stage", "size", "parameters", "median us",
             "min us", "Mpix/s", "GB/s", "bound");
  std::fflush(stdout);
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  for (const auto& size_text : sizes) {
    const auto [width, height] = parse_size(size_text);
    const auto cases = bench::make_bench_cases(width, height, args.stages, args.thinning_tilings);
    std::optional<std::vector<std::vector<bench::KernelBounds>>> measured;
    if (ncu) {
      // Before the timing, which it would otherwise disturb; the child makes its own buffers.
      std::string why;
      measured = ncu_bounds(*ncu, args, size_text, cases.size(), why);
      if (!measured) warn(fmt::format("ncu at {}: {}; the estimate instead", size_text, why));
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
      const auto r = bench::time_case(cases[i], args.warmup, args.runs);
      const bool estimated = !measured;
      const auto bounds = estimated ? std::vector{bench::estimate_bounds(cases[i].work, cases[i].min_bytes, peaks,
                                                                          r.median_ms)}
                                    : (*measured)[i];
      fmt::print("{:<15} {:>10} {:<34} {:>11.2f} {:>11.2f} {:>9.0f} {:>8}  {}\n", r.bench.stage,
                 fmt::format("{}x{}", width, height), r.bench.parameters, r.median_ms * 1e3, r.min_ms * 1e3,
                 r.mpixel_per_s(), r.gbyte_per_s() > 0 ? fmt::format("{:.0f}", r.gbyte_per_s()) : "-",
                 bench::bound_cell(bounds, estimated));
      std::fflush(stdout);
      results.push_back(to_json(r, bounds, estimated));
    }
  }

  if (!args.json.empty()) {
    nlohmann::ordered_json doc;
    doc["device"] = device.name;
    doc["commit"] = FRAMEPIPE_GIT_COMMIT;
    doc["warmup_runs"] = args.warmup;
    doc["bounds_method"] = {{"requested", args.bounds},
                     {"ncu", ncu ? nlohmann::ordered_json(*ncu) : nlohmann::ordered_json(nullptr)},
                     {"peaks", {{"dram_gbyte_per_s", peaks.dram_bytes_per_s / 1e9},
                                {"warp_instructions_per_s", peaks.warp_issue_per_s},
                                {"sfu_ops_per_s", peaks.sfu_ops_per_s}}},
                     {"warnings", warnings}};
    doc["results"] = results;
    std::ofstream out(args.json);
    if (!out) throw std::runtime_error(args.json + ": cannot open for writing");
    out << doc.dump(2) << '\n';
    if (!out) throw std::runtime_error(args.json + ": write failed");
    fmt::print("wrote {}\n", args.json);
  }
  return kOk;
}

}  // namespace fp::cli
