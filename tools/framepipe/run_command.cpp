// `framepipe run` and `framepipe validate`.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <stdexcept>

#include "media/output_target.hpp"
#include "pipeline/device.hpp"
#include "pipeline/executor.hpp"
#include "pipeline/output_paths.hpp"
#include "stages/registry.hpp"
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

// A file sent to a receiver goes at its frame rate, as `ffmpeg -re` would send it: a player
// at the other end shows frames as they come, and a burst would overflow its buffers.
bool streams_to_network(const PipelineDefinition& definition) {
  for (const auto& stage : definition.stages) {
    const StageSpec* spec = find_stage(stage.type);
    if (spec == nullptr) continue;
    for (const auto& param : spec->params)
      if (param.type == ParamType::Path && is_network_output(stage.params.text(param.name))) return true;
  }
  return false;
}

}  // namespace

int validate_command(const std::string& file, const ConfigOverrides& overrides, bool quiet) {
  // The file is checked against the requested device's limits before the device itself is
  // looked for, so a pipeline meant for cuda:0 can be checked where there is no GPU.
  const auto definition = load_pipeline(file, overrides, resolve_device("auto").kind);
  const auto device = resolve_device(definition.device);
  if (!quiet) {
    fmt::print("{}: ok, {} stages on {}\n{}", file, definition.stages.size(), device.name(),
               describe_pipeline(definition));
  }
  return kOk;
}

int run_command(const RunArguments& args) {
  const auto definition = load_pipeline(args.file, args.overrides, resolve_device("auto").kind);
  const auto device = resolve_device(definition.device);

  // Like the pipeline's outputs (run_pipeline checks those), checked before anything runs.
  if (!args.stats_json.empty())
    if (const auto reason = cannot_create_reason(args.stats_json); !reason.empty())
      throw std::runtime_error(fmt::format("--stats-json {}: cannot create: {}", args.stats_json, reason));

  RunOptions options;
  options.max_frames = args.frames;
  options.realtime = args.realtime || definition.realtime.value_or(streams_to_network(definition));
  options.drop = definition.drop;
  options.slots = args.slots;
  options.progress = !args.quiet && isatty(fileno(stderr));
  options.stop = &install_interrupt_handler();

  const RunStats stats = run_pipeline(definition, device, options);
  // Written after every output is finalized; a failure here loses none of them.
  if (!args.stats_json.empty()) {
    try {
      write_stats_json(stats, args.stats_json);
    } catch (const std::exception& e) {
      throw std::runtime_error(fmt::format("--stats-json {}", e.what()));
    }
  }
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
