// `framepipe run` and `framepipe validate`.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "media/output_target.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/definition/file_clashes.hpp"
#include "pipeline/definition/stream_pipeline.hpp"
#include "pipeline/engine/device.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/engine/output_paths.hpp"
#include "pipeline/stream_list/shard_streams.hpp"
#include "pipeline/streams/jobs.hpp"
#include "pipeline/streams/runner.hpp"
#include "pipeline/streams/stats.hpp"
#include "service/run_metrics.hpp"
#include "stages/registry.hpp"
#include "stages/text_output.hpp"
#include "tools/framepipe/commands.hpp"
#include "tools/framepipe/interrupt.hpp"

namespace fp::cli {

namespace {

std::string describe_pipeline(const PipelineDefinition& definition) {
  std::string text;
  for (const auto& stage : definition.stages) {
    text += fmt::format("  {:<16} {:<15}", stage.id, stage.type);
    if (!stage.inputs.empty()) text += fmt::format(" <- {}", fmt::join(stage.inputs, ", "));
    text += '\n';
  }
  return text;
}

// --metrics: /metrics for this run, listening before any stream starts (a taken port fails
// the command before anything is written); null without the option.
std::unique_ptr<service::RunMetrics> start_run_metrics(const RunArguments& args, const PipelineDefinition& definition,
                                                       const std::vector<Device>& devices) {
  if (args.metrics.empty()) return nullptr;
  service::RunMetricsOptions options;
  try {
    options.listen = service::parse_metrics_address(args.metrics);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  if (definition.streams.empty()) options.streams.push_back(std::filesystem::path(definition.file).stem().string());
  for (const auto& stream : definition.streams) options.streams.push_back(stream.name);
  options.capacity = options.streams.size();
  for (const auto& device : devices)
    if (device.kind == DeviceKind::Cuda) options.gpus.push_back(device.ordinal);
  options.version = FRAMEPIPE_VERSION;
  const service::ListenAddress listen = options.listen;
  auto metrics = std::make_unique<service::RunMetrics>(std::move(options));
  if (!args.quiet) {
    service::ListenAddress bound = listen;
    bound.port = metrics->port();
    fmt::print(stderr, "framepipe: metrics on http://{}/metrics\n", bound.to_string());
  }
  return metrics;
}

// --shard: checked before anything slow, so that a bad one is a usage error naming it.
std::optional<Shard> shard_of(const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    return shard_from_argument(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());  // the message starts with "--shard"
  }
}

// --stats-json: the run's document (a sharded run's says the shard), written with every
// failure named, a full disk's included.
void write_stats_document(std::string document, const std::optional<ShardSelection>& selection,
                          const std::string& path) {
  if (selection) document = stats_json_with_shard(document, *selection);
  try {
    TextOutput out(path);
    out.write(document + '\n');
    out.close();
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("--stats-json {}", e.what()));
  }
}

// Every stream's outputs are finalized whatever happens to the others; a failed stream is
// named with its error, and the exit code says the worst: 1 when any failed, else 130 when
// a signal stopped them (streams still waiting then never start), else 0.
int run_several_streams(const RunArguments& args, const PipelineDefinition& definition,
                        const std::vector<Device>& devices, const RunOptions& options, service::RunMetrics* metrics,
                        const std::optional<ShardSelection>& selection) {
  // Decided before anything runs: a --jobs that live inputs would fill is a usage error.
  const auto endless = endless_streams(definition, options.max_frames);
  const int requested = args.jobs >= 0 ? args.jobs : definition.jobs;
  const std::string setting =
      args.jobs >= 0 ? fmt::format("--jobs {}", args.jobs) : fmt::format("{}: jobs: {}", definition.file, definition.jobs);
  const int derived = requested > 0 ? 0 : default_stream_jobs(definition, devices, options);
  const int jobs = resolve_stream_jobs(requested, setting, derived, endless);
  const auto started = std::chrono::steady_clock::now();
  StreamWatch watch;
  if (metrics != nullptr) {
    metrics->set_capacity(static_cast<std::size_t>(jobs));
    watch.monitor = [metrics](std::size_t i) { return metrics->monitor(i); };
    watch.started = [metrics](std::size_t i) { metrics->started(i); };
    watch.ended = [metrics](std::size_t i, bool failed) { metrics->ended(i, failed); };
  }
  const StreamsRun run = run_streams(definition, devices, options, args.fail_fast, jobs, watch);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto& results = run.streams;
  bool failed = false;
  bool interrupted = run.interrupted;
  for (const auto& r : results) {
    if (!r.error.empty()) fmt::print(stderr, "framepipe: error: stream {}: {}\n", r.name, r.error);
    failed = failed || !r.error.empty();
    interrupted = interrupted || (r.stats.interrupted && !r.stopped_by_failure);
  }
  if (!args.stats_json.empty()) write_stats_document(streams_to_json(run, wall), selection, args.stats_json);
  if (!args.quiet) {
    fmt::print("{}", streams_summary(run, wall));
    for (const auto& r : results)
      for (const auto& output : r.stats.outputs)
        fmt::print("{} {}\n", is_network_output(output) ? "sent" : "wrote", output);
    if (!args.stats_json.empty()) fmt::print("wrote {}\n", args.stats_json);
  }
  if (failed) return kRuntimeError;
  if (interrupted) {
    if (!args.quiet) fmt::print(stderr, "framepipe: interrupted; outputs finalized\n");
    return kInterrupted;
  }
  return kOk;
}

// The pipeline, checked against the limits of the backend it will run on (config_loader.hpp:
// only a pipeline on auto asks whether this machine has a GPU).
PipelineDefinition load_for_this_machine(const std::string& file, const ConfigOverrides& overrides) {
  return load_pipeline(file, overrides, AutoBackend([] { return resolve_device("auto").kind; }));
}

void check_stats_json_clashes(const PipelineDefinition& definition, const std::string& stats_json) {
  std::vector<FileUse> files = definition.files;
  files.push_back({.written = true, .path = stats_json, .what = "--stats-json file",
                   .where = ConfigIssue{.file = kCommandLine, .key = "--stats-json"}});
  std::vector<ConfigIssue> issues;
  check_file_clashes(files, issues);
  if (!issues.empty()) throw ConfigError(std::move(issues));
}

}  // namespace

int validate_command(const std::string& file, const ConfigOverrides& overrides, bool quiet) {
  // The file is checked against the requested device's limits before the device itself is
  // looked for, so a pipeline meant for cuda:0 can be checked where there is no GPU.
  const auto definition = load_for_this_machine(file, overrides);
  const auto devices = resolve_devices(definition.device);
  const Device& device = devices.front();
  if (!quiet) {
    fmt::print("{}: ok, {} stages on {}\n{}", file, definition.stages.size(), device.name(),
               describe_pipeline(definition));
    if (definition.streams.size() > 1) {
      std::vector<std::string> names;
      for (const auto& stream : definition.streams) names.push_back(stream.name);
      fmt::print("  runs on {} streams: {}\n", names.size(), fmt::join(names, ", "));
    }
  }
  return kOk;
}

int run_command(const RunArguments& args) {
  const std::optional<Shard> shard = shard_of(args.shard);
  // main installed the handler before anything slow; this is its flag.
  const std::atomic<bool>& stop = install_interrupt_handler();
  // A signal while the pipeline is read (a file that is a FIFO, as `<(...)` is) or the
  // devices are looked for ends the command with 130 before anything runs or is created;
  // a read it broke off failing is that same interruption.
  const auto interrupted_early = [&] {
    if (!args.quiet) fmt::print(stderr, "framepipe: interrupted before the run started\n");
    return kInterrupted;
  };
  std::optional<PipelineDefinition> loaded;
  std::vector<Device> devices;
  try {
    loaded = load_for_this_machine(args.file, args.overrides);
    devices = resolve_devices(loaded->device);
  } catch (...) {
    if (stop.load()) return interrupted_early();
    throw;
  }
  if (stop.load()) return interrupted_early();
  // Selected once the inputs are expanded and named (a glob, a list, -i), and after the
  // whole pipeline validated: every shard checks every input's settings alike.
  std::optional<ShardSelection> selection;
  if (shard) selection = select_shard_streams(*loaded, *shard);
  const PipelineDefinition& definition = *loaded;
  const Device& device = devices.front();

  // Like the pipeline's outputs (run_pipeline checks those), checked before anything runs:
  // it must be no input nor output of the pipeline, and its folder must be writable.
  if (!args.stats_json.empty()) {
    check_stats_json_clashes(definition, args.stats_json);
    if (const auto reason = cannot_create_reason(args.stats_json); !reason.empty())
      throw std::runtime_error(fmt::format("--stats-json {}: cannot create: {}", args.stats_json, reason));
  }

  RunOptions options;
  options.max_frames = args.frames;
  options.realtime = args.realtime || runs_in_realtime(definition);
  options.drop = definition.drop;
  options.slots = args.slots;
  options.progress = !args.quiet && isatty(fileno(stderr));
  options.stop = &stop;

  if (selection && !args.quiet) fmt::print("{}\n", selection->describe());
  // An index with nothing to do has done it: an Indexed Job's pod ends well.
  if (selection && selection->selected == 0) {
    if (!args.stats_json.empty()) {
      write_stats_document(streams_to_json(StreamsRun{}, 0.0), selection, args.stats_json);
      if (!args.quiet) fmt::print("wrote {}\n", args.stats_json);
    }
    return kOk;
  }

  const auto metrics = start_run_metrics(args, definition, devices);
  // A sharded run on several inputs reports as one, whatever is left of them here.
  if (definition.streams.size() > 1 || (selection && !definition.streams.empty()))
    return run_several_streams(args, definition, devices, options, metrics.get(), selection);
  if (metrics) {
    options.monitor = metrics->monitor(0);
    metrics->started(0);
  }
  const RunStats stats = [&] {
    try {
      return run_pipeline(stream_pipeline(definition, 0), device, options);
    } catch (...) {
      if (metrics) metrics->ended(0, true);
      throw;
    }
  }();
  if (metrics) metrics->ended(0, false);
  // Written after every output is finalized; a failure here loses none of them.
  if (!args.stats_json.empty()) write_stats_document(stats_to_json(stats), selection, args.stats_json);
  if (!args.quiet) {
    fmt::print("{}", stats_summary(stats));
    for (const auto& output : stats.outputs) fmt::print("{} {}\n", is_network_output(output) ? "sent" : "wrote", output);
    if (!args.stats_json.empty()) fmt::print("wrote {}\n", args.stats_json);
  }
  if (stats.interrupted) {
    if (!args.quiet) fmt::print(stderr, "framepipe: interrupted; outputs finalized\n");
    return kInterrupted;
  }
  return kOk;
}

}  // namespace fp::cli
