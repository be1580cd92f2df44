// `framepipe bench`: every CUDA kernel timed with CUDA events (median and minimum of many
// runs after a warm-up), printed as a table and written as JSON.
#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cuda/device_query.hpp"
#include "pipeline/config_error.hpp"
#include "tools/framepipe/bench/bench_case.hpp"
#include "tools/framepipe/bench/bench_command.hpp"
#include "tools/framepipe/commands.hpp"

namespace fp::cli {

namespace {

std::pair<int, int> parse_size(const std::string& text) {
  int w = 0;
  int h = 0;
  char x = 0;
  char extra = 0;
  if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || x != 'x' || w <= 0 || h <= 0)
    throw UsageError(fmt::format("--size {}: expected WIDTHxHEIGHT, e.g. 1920x1080", text));
  return {w, h};
}

nlohmann::ordered_json to_json(const bench::BenchResult& r) {
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
  return j;
}

}  // namespace

int bench_command(const BenchArguments& args) {
  if (cuda::device_count() == 0)
    throw UsageError("bench needs a CUDA device (" + cuda::runtime_summary() + ")");
  if (args.runs < 1) throw UsageError("--runs must be at least 1");
  const auto device = cuda::describe_device(0);
  std::vector<std::string> sizes = args.sizes;
  if (sizes.empty()) sizes = {"1280x720", "1920x1080", "3840x2160"};

  fmt::print("framepipe bench on cuda:0 ({}), commit {}, median and min of {} runs after {} warm-up runs\n",
             device.name, FRAMEPIPE_GIT_COMMIT, args.runs, args.warmup);
  fmt::print("{:<15} {:>10} {:<34} {:>11} {:>11} {:>9} {:>8}\n", "stage", "size", "parameters", "median us",
             "min us", "Mpix/s", "GB/s");
  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  int matched = 0;
  for (const auto& size_text : sizes) {
    const auto [width, height] = parse_size(size_text);
    for (const auto& bench_case : bench::make_bench_cases(width, height, args.stage)) {
      ++matched;
      const auto r = bench::time_case(bench_case, args.warmup, args.runs);
      fmt::print("{:<15} {:>10} {:<34} {:>11.2f} {:>11.2f} {:>9.0f} {:>8}\n", r.bench.stage,
                 fmt::format("{}x{}", width, height), r.bench.parameters, r.median_ms * 1e3, r.min_ms * 1e3,
                 r.mpixel_per_s(), r.gbyte_per_s() > 0 ? fmt::format("{:.0f}", r.gbyte_per_s()) : "-");
      results.push_back(to_json(r));
    }
  }
  if (matched == 0) throw UsageError(fmt::format("--stage {}: no such kernel to benchmark", args.stage));

  if (!args.json.empty()) {
    nlohmann::ordered_json doc;
    doc["device"] = device.name;
    doc["commit"] = FRAMEPIPE_GIT_COMMIT;
    doc["warmup_runs"] = args.warmup;
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
