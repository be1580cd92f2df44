// `framepipe run` and `framepipe validate`.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "media/output_target.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/definition/file_clashes.hpp"
#include "pipeline/engine/device.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/engine/output_paths.hpp"
#include "pipeline/stream_list/shard_streams.hpp"
#include "pipeline/capacity/capacity.hpp"
#include "pipeline/capacity/jobs.hpp"
#include "pipeline/streams/definition_streams.hpp"
#include "pipeline/streams/manager.hpp"
#include "pipeline/streams/stats.hpp"
#include "service/metrics.hpp"
#include "service/metrics_server.hpp"
#include "service/stream_metrics.hpp"
#include "stages/registry.hpp"
#include "stages/text_output.hpp"
#include "tools/framepipe/capacity_options.hpp"
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

// --metrics ADDR, checked before anything slow: a bad one is a usage error naming it.
std::optional<service::ListenAddress> metrics_address(const RunArguments& args) {
  if (args.metrics.empty()) return std::nullopt;
  try {
    return service::parse_metrics_address(args.metrics);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// --metrics: the run's streams as serve's /metrics serves them (the same collector, reading
// the same stream manager), listening before any stream starts: a taken port fails the
// command before anything is written.
class RunMetricsEndpoint {
 public:
  RunMetricsEndpoint(const StreamManager& manager, const std::vector<Device>& devices,
                     const service::ListenAddress& listen, bool quiet)
      : metrics_(service::manager_metrics_source(manager, devices, FRAMEPIPE_VERSION)), server_(listen, metrics_) {
    if (quiet) return;
    service::ListenAddress bound = listen;
    bound.port = server_.port();
    fmt::print(stderr, "framepipe: metrics on http://{}/metrics\n", bound.to_string());
  }

 private:
  service::Metrics metrics_;
  service::MetricsServer server_;  // last: stops answering before the metrics go
};

// How the run's streams ended, and what the first stream's run threw (a one-stream run
// reports its failure as run_pipeline threw it).
struct ManagedStreams {
  StreamsReport report;
  std::exception_ptr first_failure;
};

// --cost: what a stream costs and what the machine has.
struct RunCapacity {
  PipelineCost cost;
  CapacityBudget budget;
};

// --cost, checked before anything runs: the live inputs (which never wait: each takes its
// place at once) must fit the budget together, or the run is a usage error saying how many
// do. The others wait for room as for a place.
std::optional<RunCapacity> run_capacity(const RunArguments& args, const std::vector<Device>& devices,
                                        const std::vector<bool>& endless) {
  if (args.cost.empty()) return std::nullopt;
  RunCapacity capacity{read_cost_file("--cost", args.cost), machine_budget_for(args.cpu_budget, devices)};
  const int live = static_cast<int>(std::count(endless.begin(), endless.end(), true));
  const StreamsThatFit fit = streams_that_fit(capacity.budget, capacity.cost.load());
  if (live > std::max(fit.streams, 1))
    throw UsageError(fmt::format(
        "--cost {}: {} of the inputs are live and never end, and this machine's budget carries {} such streams "
        "({} runs out first: {} a stream, {} in all{}); run fewer, or on more machines (--shard)",
        args.cost, live, fit.streams, capacity_resource_name(fit.limit),
        fmt::format("{:.3g}", capacity.cost.load().of(fit.limit)), fmt::format("{:.3g}", capacity.budget.of(fit.limit)),
        fit.limit == CapacityResource::CpuEncode ? " cores, --cpu-budget" : ""));
  return capacity;
}

// The run's streams, run by the stream manager as serve's are, with run's policy: stream i
// of the definition is spec i (in order, spread over the devices in turn), at most `jobs`
// at once (live inputs take places beyond it: resolve_stream_jobs left room), no restarts,
// outputs written where the pipeline says, and under --fail-fast the first failure stops
// the rest. Returns once every stream has ended, or the signal stopped them (each started
// stream's outputs finalized; those still waiting never start).
ManagedStreams run_managed_streams(const RunArguments& args, const PipelineDefinition& definition,
                                   const std::vector<Device>& devices, const RunOptions& options, std::size_t jobs,
                                   const std::optional<RunCapacity>& capacity = std::nullopt) {
  constexpr auto kWatchInterval = std::chrono::milliseconds(20);
  const auto streams = std::make_shared<const DefinitionStreams>(definition, options.max_frames);
  StreamManagerOptions manager_options;
  manager_options.planner = streams;
  manager_options.max_streams = jobs;
  manager_options.devices = devices;
  manager_options.run = options;
  manager_options.run.stop = nullptr;  // the manager's own per stream; the signal is watched below
  manager_options.policy = StreamPolicy::batch(args.fail_fast);  // this thread looks, below
  if (capacity) {
    manager_options.template_costs = {{definition.file, capacity->cost}};
    manager_options.budget = capacity->budget;
  }
  StreamManager manager(std::move(manager_options));
  std::optional<RunMetricsEndpoint> metrics;
  if (const auto listen = metrics_address(args)) metrics.emplace(manager, devices, *listen, args.quiet);

  std::vector<StreamChange> changes;
  for (auto& spec : streams->specs()) changes.push_back({.spec = std::move(spec)});
  const auto results = manager.apply(changes);
  for (std::size_t i = 0; i < results.size(); ++i)
    if (results[i].outcome == StreamChangeResult::Outcome::Refused)  // the definition was checked whole: a bug
      throw std::runtime_error(fmt::format("stream {}: {}", changes[i].spec.name, results[i].error));
  for (manager.look(); !manager.settled() && !options.stop->load(); manager.look())
    std::this_thread::sleep_for(kWatchInterval);
  manager.drain(std::chrono::milliseconds::max());  // after the signal, every stream stops here

  ManagedStreams done;
  StreamsReport& report = done.report;
  report.streams = manager.list();
  std::sort(report.streams.begin(), report.streams.end(), [&streams](const auto& a, const auto& b) {
    return streams->index_of(a.name) < streams->index_of(b.name);
  });
  const ManagerInfo info = manager.info();
  report.jobs = info.capacity;
  report.max_running = info.max_running;
  report.interrupted = options.stop->load();
  for (const auto& stream : report.streams)
    report.fail_fast_stopped = report.fail_fast_stopped || (args.fail_fast && !stream_error(stream).empty());
  if (!report.streams.empty()) done.first_failure = manager.failure(report.streams.front().name);
  return done;
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
// a signal stopped them (streams still waiting then never start).
int run_several_streams(const RunArguments& args, const PipelineDefinition& definition,
                        const std::vector<Device>& devices, const RunOptions& options,
                        const std::optional<ShardSelection>& selection) {
  // Decided before anything runs: a --jobs that live inputs would fill is a usage error.
  const auto endless = endless_runs(definition, options.max_frames);
  const int requested = args.jobs >= 0 ? args.jobs : definition.jobs;
  const std::string setting =
      args.jobs >= 0 ? fmt::format("--jobs {}", args.jobs) : fmt::format("{}: jobs: {}", definition.file, definition.jobs);
  const int derived = requested > 0 ? 0 : default_stream_jobs(definition, devices, options);
  const int jobs = resolve_stream_jobs(requested, setting, derived, endless);
  const auto started = std::chrono::steady_clock::now();
  RunOptions stream_options = options;
  stream_options.progress = false;  // one line per stream would garble the terminal
  const auto capacity = run_capacity(args, devices, endless);
  const StreamsReport report = run_managed_streams(args, definition, devices, stream_options, jobs, capacity).report;
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  bool failed = false;
  bool interrupted = report.interrupted;
  for (const auto& stream : report.streams) {
    const std::string error = stream_error(stream);
    if (!error.empty()) fmt::print(stderr, "framepipe: error: stream {}: {}\n", stream.name, error);
    failed = failed || !error.empty();
    interrupted = interrupted || (stream.stats.interrupted && !stopped_by_failure(report, stream));
  }
  if (!args.stats_json.empty()) write_stats_document(streams_to_json(report, wall), selection, args.stats_json);
  if (!args.quiet) {
    fmt::print("{}", streams_summary(report, wall));
    for (const auto& stream : report.streams)
      for (const auto& output : stream.stats.outputs)
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

// One stream: a batch of one, through the stream manager as every run of several inputs and
// every stream of serve (one way to drive the engine; /metrics reads it as serve's); a
// failure is thrown as the run threw it, and its report is one stream's.
RunStats run_one_stream(const RunArguments& args, const PipelineDefinition& definition,
                        const std::vector<Device>& devices, const RunOptions& options) {
  ManagedStreams done = run_managed_streams(args, definition, devices, options, 1);
  if (done.first_failure) std::rethrow_exception(done.first_failure);
  return done.report.streams.front().stats;
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

  // Like the pipeline's outputs (run_pipeline checks those), checked before anything runs:
  // it must be no input nor output of the pipeline, and its folder must be writable.
  if (!args.stats_json.empty()) {
    check_stats_json_clashes(definition, args.stats_json);
    if (const auto reason = cannot_create_reason(args.stats_json); !reason.empty())
      throw std::runtime_error(fmt::format("--stats-json {}: cannot create: {}", args.stats_json, reason));
  }

  RunOptions options;
  options.max_frames = args.frames;
  options.realtime = args.realtime;  // or each stream's pipeline says so: the manager decides, as for serve's
  options.slots = args.slots;
  options.progress = !args.quiet && isatty(fileno(stderr));
  options.stop = &stop;

  if (selection && !args.quiet) fmt::print("{}\n", selection->describe());
  // An index with nothing to do has done it: an Indexed Job's pod ends well.
  if (selection && selection->selected == 0) {
    if (!args.stats_json.empty()) {
      write_stats_document(streams_to_json(StreamsReport{}, 0.0), selection, args.stats_json);
      if (!args.quiet) fmt::print("wrote {}\n", args.stats_json);
    }
    return kOk;
  }

  metrics_address(args);  // a bad --metrics is a usage error before any stream starts
  // A sharded run on several inputs reports as one, whatever is left of them here.
  if (definition.streams.size() > 1 || (selection && !definition.streams.empty()))
    return run_several_streams(args, definition, devices, options, selection);
  const RunStats stats = run_one_stream(args, definition, devices, options);
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
