// `framepipe bench --pipeline`: one stream of the pipeline run for a bounded time on its own
// input (or -i), measured from outside the engine — the process's CPU time (getrusage: every
// thread, x264's and FFmpeg's included), the kernels' GPU time (the stages' CUDA events, as
// the run's statistics give them), resident and device memory — and the count of such
// streams this machine carries, by the model the stream manager admits streams with
// (pipeline/capacity/capacity.hpp).
#include "tools/framepipe/bench/pipeline_bench.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <thread>

#include "core/frame_context.hpp"
#include "core/process_usage.hpp"
#include "core/usable_cores.hpp"
#include "media/probe.hpp"
#include "pipeline/config/loader.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/definition/stream_pipeline.hpp"
#include "pipeline/engine/device.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "pipeline/capacity/capacity.hpp"
#include "pipeline/capacity/jobs.hpp"
#include "stages/gpu_devices.hpp"
#include "pipeline/engine/output_paths.hpp"
#include "stages/text_output.hpp"
#include "tools/framepipe/bench/scratch_folder.hpp"
#include "tools/framepipe/commands.hpp"
#include "tools/framepipe/interrupt.hpp"
#ifdef FRAMEPIPE_WITH_CUDA
#include "cuda/spin.hpp"
#endif

namespace fp::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// Opening the input, the decoder's and the encoders' set-up and the first frames' caches are
// no part of what a stream costs while it runs: the measurement starts this long after the
// first frame went through.
constexpr double kWarmupSeconds = 2;
constexpr auto kSampleEvery = std::chrono::milliseconds(50);
// The spin each frame's GPU work queues behind in the run that times the kernels: longer than
// the host takes to launch a frame's work (~0.3 ms for the five stages).
constexpr double kLaunchCoverMicroseconds = 2000;
// Fewer frames than this measured say nothing reliable.
constexpr std::int64_t kFewestFrames = 10;

bool is_codec_stage(const StageTiming& stage) { return stage.type == "decode" || stage.type == "encode"; }

// The kernels' time so far: the processing stages' busy time, which on CUDA is their GPU time.
double gpu_ms_of(const RunStats& stats) {
  double total = 0;
  for (const auto& stage : stats.stages)
    if (!is_codec_stage(stage)) total += stage.total_ms;
  return total;
}

// Where the measurement starts or ends.
struct Mark {
  Clock::time_point at;
  double cpu_seconds = 0;
  std::int64_t frames = 0;
  double gpu_ms = 0;
};

Mark mark_now(const RunStats& published) {
  return {Clock::now(), process_cpu_seconds(), published.frames, gpu_ms_of(published)};
}

struct Measured {
  std::int64_t frames = 0;    // in the measured window
  double seconds = 0;         // its length
  double cpu_ms = 0;          // the process's CPU a frame
  double gpu_ms = 0;          // the kernels' a frame (0 on the CPU)
  double pcie_bytes = 0;      // a frame
  double host_bytes = 0;      // resident memory the run added, at its peak
  double device_bytes = 0;    // device memory the run added, at its peak
  bool interrupted = false;   // Ctrl-C
  RunStats stats;
  double fps() const { return seconds > 0 ? static_cast<double>(frames) / seconds : 0; }
};

// Runs `definition` until `seconds` past the warm-up (or its input's end, or Ctrl-C), and
// measures the window between. `slots`: frames in flight on a GPU.
Measured measure_run(const PipelineDefinition& definition, const Device& device, double seconds, bool paced,
                     int slots, const std::atomic<bool>& interrupt, RunHooks hooks = {}) {
  const bool gpu = device.kind == DeviceKind::Cuda;
  const std::size_t rss_before = resident_bytes();
  const std::size_t free_before = gpu ? gpu_free_memory_bytes(device.ordinal) : 0;
  RunMonitor monitor;
  std::atomic<bool> stop{false};
  std::atomic<bool> ended{false};
  RunOptions options;
  options.realtime = paced;
  options.slots = slots;
  options.hooks = std::move(hooks);
  options.drop = definition.drop;
  options.stop = &stop;
  options.monitor = &monitor;

  std::optional<Mark> first;
  std::optional<Mark> last;
  std::size_t rss_peak = rss_before;
  std::size_t free_least = free_before;
  std::thread sampler([&] {
    const auto started = Clock::now();
    std::optional<Clock::time_point> first_frame_at;
    while (!ended.load()) {
      std::this_thread::sleep_for(kSampleEvery);
      rss_peak = std::max(rss_peak, resident_bytes());
      if (gpu) {
        const std::size_t free = gpu_free_memory_bytes(device.ordinal);
        if (free > 0) free_least = std::min(free_least, free);
      }
      const RunStats published = monitor.snapshot();
      if (!first_frame_at && published.frames > 0) first_frame_at = Clock::now();
      const auto since_first = [&] { return std::chrono::duration<double>(Clock::now() - *first_frame_at).count(); };
      if (!first && first_frame_at && since_first() >= kWarmupSeconds) first = mark_now(published);
      if (first && since_first() >= kWarmupSeconds + seconds) {
        last = mark_now(published);
        break;
      }
      if (interrupt.load()) break;
      // An input that never delivers (a camera that is off) must not hold the bench forever.
      if (!first_frame_at && std::chrono::duration<double>(Clock::now() - started).count() > 60 + seconds) break;
    }
    stop = true;
  });
  const Mark at_start{Clock::now(), process_cpu_seconds(), 0, 0};
  Measured measured;
  try {
    measured.stats = run_pipeline(stream_pipeline(definition, 0), device, options);
  } catch (...) {
    ended = true;
    sampler.join();
    throw;
  }
  const Mark at_end = mark_now(measured.stats);
  ended = true;
  sampler.join();
  measured.interrupted = interrupt.load();
  // An input that ended before the window did: its frames after the warm-up, else all of them.
  if (!last) last = at_end;
  const Mark start = first && first->frames < last->frames ? *first : at_start;
  measured.frames = last->frames - start.frames;
  measured.seconds = std::chrono::duration<double>(last->at - start.at).count();
  if (measured.frames > 0) {
    const auto frames = static_cast<double>(measured.frames);
    measured.cpu_ms = (last->cpu_seconds - start.cpu_seconds) * 1e3 / frames;
    measured.gpu_ms = gpu ? (last->gpu_ms - start.gpu_ms) / frames : 0.0;
  }
  const RunStats& stats = measured.stats;
  if (stats.frames > 0) {
    const auto frames = static_cast<double>(stats.frames);
    measured.pcie_bytes = static_cast<double>(stats.bytes_uploaded + stats.bytes_downloaded) / frames;
  }
  measured.host_bytes = static_cast<double>(rss_peak > rss_before ? rss_peak - rss_before : 0);
  measured.device_bytes = static_cast<double>(free_before > free_least ? free_before - free_least : 0);
  return measured;
}

bool discards(const StageDefinition& stage) { return !names_a_file(stage.params.text("output")); }

// The same container for a file (its muxing is part of the cost), MPEG-TS for what is sent
// (HLS, udp, srt, rtsp): the encoder's work is the same, and nothing leaves the machine.
std::string scratch_extension(const std::string& output) {
  for (const char* kept : {".mp4", ".mkv", ".ts", ".y4m"})
    if (output.size() > std::string(kept).size() && output.ends_with(kept) && output.find("://") == std::string::npos)
      return kept;
  return ".ts";
}

// The overrides that measure the pipeline as it runs at capacity: each encode output written
// into the scratch folder (`encode`: true) or discarded, and x264 at one thread where the
// pipeline leaves it to the budget — the share a stream has once the encoders outnumber the
// cores. Every other output (a histogram's rows) is written into the scratch folder too, in
// both runs: the pipeline's own files are never touched (a histogram named in it used to be
// truncated and filled with the bench's rows).
std::vector<std::string> bench_sets(const PipelineDefinition& definition, const fs::path& scratch, bool encode) {
  std::vector<std::string> sets;
  for (const auto& stage : definition.stages) {
    if (stage.type != "encode") {
      for (const auto& param : path_params(stage))
        if (names_a_file(param.path))
          sets.push_back(fmt::format("{}.{}='{}'", stage.id, param.name,
                                     (scratch / (stage.id + fs::path(param.path).extension().string())).string()));
      continue;
    }
    if (discards(stage)) continue;
    if (!encode) {
      sets.push_back(stage.id + ".output=null");
      continue;
    }
    const fs::path file = scratch / (stage.id + scratch_extension(stage.params.text("output")));
    sets.push_back(fmt::format("{}.output='{}'", stage.id, file.string()));
    if (stage.params.integer("threads") == 0) sets.push_back(stage.id + ".threads=1");
  }
  return sets;
}

int encoders_of(const PipelineDefinition& definition) {
  int count = 0;
  for (const auto& stage : definition.stages) count += stage.type == "encode" && !discards(stage);
  return count;
}

PipelineDefinition load_with(const PipelineBenchArguments& args, const std::vector<std::string>& extra_sets) {
  ConfigOverrides overrides = args.overrides;
  overrides.sets.insert(overrides.sets.end(), extra_sets.begin(), extra_sets.end());
  return load_pipeline(args.file, overrides, AutoBackend([] { return resolve_device("auto").kind; }));
}

// The uri stream 0 reads, and its nominal frame rate (0 when it cannot be told).
std::pair<std::string, double> input_of(const PipelineDefinition& definition, const std::atomic<bool>& interrupt) {
  const PipelineDefinition one = stream_pipeline(definition, 0);
  for (const auto& stage : one.stages) {
    if (stage.type != "decode" || !stage.params.has("uri")) continue;
    const std::string uri = stage.params.text("uri");
    try {
      for (const auto& stream : probe(uri, &interrupt).streams)
        if (stream.type == "video" && stream.decoder.rfind("not used", 0) != 0) return {uri, stream.frame_rate};
    } catch (const std::exception&) {
      // The run says what is wrong with the input; the rate is then the one measured.
    }
    return {uri, 0.0};
  }
  return {"", 0.0};
}

std::string mib(double bytes) { return fmt::format("{:.0f} MiB", bytes / (1 << 20)); }

std::string count_text(double count) {
  return count >= 1e9 || std::isinf(count) ? std::string("-") : fmt::format("{:.0f}", count);
}

}  // namespace

int pipeline_bench_command(const PipelineBenchArguments& args) {
  if (!(args.seconds >= 1 && args.seconds <= 3600)) throw UsageError("--seconds must be 1..3600");
  const std::atomic<bool>& interrupt = install_interrupt_handler();
  if (!args.json.empty())
    if (const auto reason = cannot_create_reason(args.json); !reason.empty())
      throw std::runtime_error(fmt::format("--json {}: cannot create: {}", args.json, reason));
  const PipelineDefinition as_written = load_with(args, {});
  const std::vector<Device> devices = resolve_devices(as_written.device);
  const Device& device = devices.front();
  const bool gpu = device.kind == DeviceKind::Cuda;
  if (gpu) gpu_free_memory_bytes(device.ordinal);  // the device's context, made before anything is measured
  const auto [uri, nominal_fps] = input_of(as_written, interrupt);
  const int encoders = encoders_of(as_written);

  // The outputs the bench encodes to measure the encoders, deleted after: the pipeline's own
  // files are never touched.
  const bench::ScratchFolder scratch("bench", "bench --pipeline's outputs");
  const Measured full = measure_run(load_with(args, bench_sets(as_written, scratch.path(), true)), device,
                                    args.seconds, !args.unpaced, RunOptions{}.slots, interrupt);
  if (full.interrupted) return kInterrupted;
  if (full.frames < kFewestFrames)
    throw std::runtime_error(fmt::format("bench --pipeline {}: only {} frames went through in the measured time; "
                                         "give --seconds more, or an input with more frames",
                                         args.file, full.frames));
  // Again without the encoders, as fast as the input comes and one frame in flight: what the
  // encoders cost is the difference, and the kernels' time is measured as a GPU busy with
  // many streams runs them. At one stream's rate a GPU is idle 97% of the time and clocks
  // down, and each stage's events span the gaps while the host launches its kernels one by
  // one (a GPU with many streams has the next ones queued): on an H200 the five stages
  // measured 0.91 ms a frame that way, 0.85 unpaced, against 0.73 for their kernels alone.
  // So each frame's work queues behind a spin kernel that outlasts its launches: the stages
  // then run back to back, on a GPU kept busy. One frame in flight, so that no two frames'
  // kernels overlap within one stage's timing.
  RunHooks queued;
#ifdef FRAMEPIPE_WITH_CUDA
  if (gpu) queued.before_upload = [](FrameContext& context) { cuda::spin(kLaunchCoverMicroseconds, context.stream); };
#endif
  const Measured bare = measure_run(load_with(args, bench_sets(as_written, scratch.path(), false)), device,
                                    args.seconds, false, 1, interrupt, queued);
  if (bare.interrupted) return kInterrupted;
  const bool bare_counts = bare.frames >= kFewestFrames;

  PipelineCost cost;
  cost.fps = nominal_fps > 0 ? nominal_fps : std::max(full.fps(), 1.0);
  cost.cpu_ms = full.cpu_ms;
  cost.gpu_ms = gpu && bare_counts ? bare.gpu_ms : full.gpu_ms;
  cost.host_bytes = full.host_bytes;
  cost.device_bytes = full.device_bytes;
  const CapacityLoad each = cost.load();
  const double cores = usable_cores();
  std::vector<std::size_t> gpu_free;
  if (gpu)
    for (const auto& d : devices) gpu_free.push_back(gpu_free_memory_bytes(d.ordinal));
  const CapacityBudget budget = machine_budget(default_cpu_budget(cores), gpu_free, host_memory().available);
  const StreamsThatFit fit = streams_that_fit(budget, each);

  const double encoders_ms = encoders > 0 && bare_counts ? std::max(0.0, full.cpu_ms - bare.cpu_ms) : 0.0;
  const std::string device_name = gpu ? fmt::format("{} ({})", device.name(), describe_gpu(device.ordinal).name) : "cpu";
  fmt::print("framepipe bench --pipeline {} on {}, commit {}\n", args.file, device_name, FRAMEPIPE_GIT_COMMIT);
  fmt::print("input {} at {:.2f} fps{}; {} frames in {:.1f} s measured{}, after {:.0f} s of warm-up\n", uri, cost.fps,
             nominal_fps > 0 ? "" : " (measured: the input does not say)", full.frames, full.seconds,
             args.unpaced ? " unpaced" : " at the input's rate", kWarmupSeconds);
  if (encoders > 0)
    fmt::print("x264 at 1 thread an encoder where the pipeline leaves it to the budget (its share at capacity)\n");
  fmt::print("\nper frame\n");
  fmt::print("  {:<34} {:>10.2f} ms\n", "CPU, the whole process", full.cpu_ms);
  if (encoders > 0 && bare_counts) {
    fmt::print("  {:<34} {:>10.2f} ms\n", fmt::format("  the {} encoder{}", encoders, encoders > 1 ? "s" : ""),
               encoders_ms);
    fmt::print("  {:<38} {:>6.2f} ms\n", "  the rest (decoding, stages, copies)", full.cpu_ms - encoders_ms);
  }
  if (gpu)
    fmt::print("  {:<34} {:>10.3f} ms   ({:.3f} at the input's rate)\n", "GPU, the kernels on a busy GPU", cost.gpu_ms,
               full.gpu_ms);
  fmt::print("  {:<34} {:>10.2f} MB\n", "PCIe, both ways", full.pcie_bytes / 1e6);
  fmt::print("per stream at {:.2f} fps\n", cost.fps);
  fmt::print("  {:<34} {:>10.2f}\n", "cores", each.cpu_cores);
  fmt::print("  {:<34} {:>9.2f}%\n", "of a GPU's time", each.gpus * 100);
  fmt::print("  {:<34} {:>13}\n", "host memory", mib(cost.host_bytes));
  fmt::print("  {:<34} {:>13}\n", "device memory", mib(cost.device_bytes));
  fmt::print("\n{:<12} {:>14} {:>14} {:>8}\n", "resource", "budget", "a stream", "streams");
  for (const auto& [resource, count] : fit.by_resource) {
    if (resource == CapacityResource::Streams) continue;
    const double have = budget.of(resource);
    const double want = each.of(resource);
    const bool bytes = resource == CapacityResource::Memory || resource == CapacityResource::GpuMemory;
    const auto cell = [&](double v) { return std::isinf(v) ? std::string("-") : bytes ? mib(v) : fmt::format("{:.3f}", v); };
    fmt::print("{:<12} {:>14} {:>14} {:>8}\n", capacity_resource_name(resource), cell(have), cell(want), count_text(count));
  }
  fmt::print("\nthis machine carries {} streams of this pipeline; {} runs out first\n", count_text(fit.streams),
             capacity_resource_name(fit.limit));

  if (!args.json.empty()) {
    nlohmann::ordered_json doc;
    doc["pipeline"] = args.file;
    doc["input"] = uri;
    doc["device"] = device_name;
    doc["commit"] = FRAMEPIPE_GIT_COMMIT;
    doc["paced"] = !args.unpaced;
    doc["frames"] = full.frames;
    doc["seconds"] = full.seconds;
    doc["fps_processed"] = full.fps();
    doc["cost"] = {{"fps", cost.fps},
                   {"cpu_ms", cost.cpu_ms},
                   {"gpu_ms", cost.gpu_ms},
                   {"host_bytes", cost.host_bytes},
                   {"device_bytes", cost.device_bytes}};
    const bool split = encoders > 0 && bare_counts;
    doc["cpu_ms"] = {{"process", full.cpu_ms},
                     {"encoders", split ? nlohmann::ordered_json(encoders_ms) : nlohmann::ordered_json(nullptr)},
                     {"without_encoders_unpaced", bare_counts ? nlohmann::ordered_json(bare.cpu_ms) : nlohmann::ordered_json(nullptr)}};
    doc["gpu_ms"] = {{"busy_gpu", cost.gpu_ms}, {"at_input_rate", full.gpu_ms}};
    doc["encoders"] = encoders;
    doc["pcie_bytes_per_frame"] = full.pcie_bytes;
    nlohmann::ordered_json budget_json;
    nlohmann::ordered_json fits_json;
    for (const auto& [resource, count] : fit.by_resource) {
      if (resource == CapacityResource::Streams) continue;
      const double have = budget.of(resource);
      budget_json[capacity_resource_name(resource)] = std::isinf(have) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(have);
      fits_json[capacity_resource_name(resource)] = count >= 1e9 || std::isinf(count) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(count);
    }
    doc["usable_cores"] = cores;
    doc["budget"] = budget_json;
    doc["streams_by_resource"] = fits_json;
    doc["streams"] = fit.streams;
    doc["limited_by"] = capacity_resource_name(fit.limit);
    TextOutput out(args.json);
    out.write(doc.dump(2) + '\n');
    out.close();
    fmt::print("wrote {}\n", args.json);
  }
  return kOk;
}

}  // namespace fp::cli
