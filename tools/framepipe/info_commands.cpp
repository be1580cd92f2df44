// `framepipe stages`, `framepipe probe` and `--version`: what framepipe knows and sees.
#include <fmt/format.h>
#include <libavcodec/version.h>
#include <libavformat/version.h>

#include <algorithm>
#include <atomic>

#include "core/sanitizers.hpp"
#include "media/probe.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/engine/device.hpp"
#include "stages/registry.hpp"
#include "tools/framepipe/commands.hpp"
#include "tools/framepipe/interrupt.hpp"

namespace fp::cli {

namespace {

const char* role_text(StageRole role) {
  switch (role) {
    case StageRole::Source: return "source";
    case StageRole::Process: return "process";
    case StageRole::Sink: return "sink";
  }
  return "";
}

std::string inputs_text(const StageSpec& spec) {
  if (spec.max_inputs == 0) return "no input";
  if (spec.min_inputs == spec.max_inputs) return fmt::format("{} input{}", spec.min_inputs, spec.min_inputs == 1 ? "" : "s");
  return fmt::format("{}-{} inputs", spec.min_inputs, spec.max_inputs);
}

void print_stage(const StageSpec& spec) {
  fmt::print("{} ({}, {}): {}\n", spec.type, role_text(spec.role), inputs_text(spec), spec.help);
  // Columns as wide as their longest entry (grouped names such as reconnect.initial_ms are long).
  std::size_t name_width = 10, type_width = 14;
  for (const auto& p : spec.params) {
    name_width = std::max(name_width, p.name.size());
    type_width = std::max(type_width, type_name(p).size());
  }
  fmt::print("  {:<{}} {:<{}} {:<12} {:<26} {}\n", "parameter", name_width, "type", type_width, "default", "range",
             "description");
  for (const auto& p : spec.params) {
    const std::string def = p.default_value ? format_value(*p.default_value) : "(required)";
    fmt::print("  {:<{}} {:<{}} {:<12} {:<26} {}\n", p.name, name_width, type_name(p), type_width, def,
               describe_range(p), p.help);
  }
}

}  // namespace

int stages_command(const std::string& name) {
  if (name.empty()) {
    for (const auto& spec : stage_registry()) fmt::print("  {:<16} {}\n", spec.type, spec.help);
    fmt::print("\n`framepipe stages NAME` shows a stage's parameters.\n");
    return kOk;
  }
  if (const auto* spec = find_stage(name)) {
    print_stage(*spec);
    return kOk;
  }
  std::string known;
  for (const auto& spec : stage_registry()) known += (known.empty() ? "" : ", ") + spec.type;
  throw UsageError(fmt::format("unknown stage type '{}' (known: {})", name, known));
}

int probe_command(const std::string& uri) {
  // main installed the handler before anything slow; a signal ends the open (a server that
  // accepts and never answers) at once, with 130, as it does a run's.
  const std::atomic<bool>& stop = install_interrupt_handler();
  ProbeResult result;
  try {
    result = probe(uri, &stop);
  } catch (...) {
    if (!stop.load()) throw;
    fmt::print(stderr, "framepipe: interrupted\n");
    return kInterrupted;
  }
  fmt::print("{}: {}", result.uri, result.format);
  if (result.duration_seconds >= 0) fmt::print(", {:.3f} s", result.duration_seconds);
  fmt::print("\n");
  for (const auto& s : result.streams) {
    fmt::print("  stream {}: {} {} {}\n", s.index, s.type, s.codec, s.details);
    if (!s.decoder.empty()) fmt::print("    decoder: {}\n", s.decoder);
    if (!s.gpu_decoder.empty()) fmt::print("    on a GPU: {}\n", s.gpu_decoder);
  }
  return kOk;
}

namespace {
// A build instrumented by a sanitizer says so (CMakePresets.json's asan and tsan): it runs
// many times slower, and the tests that drive it as a child process ask (their own binary
// may be a release one, tests/CMakeLists.txt's CHILD_PROCESS).
#if defined(FRAMEPIPE_TSAN)
constexpr const char* kSanitizerLine = "built with: ThreadSanitizer\n";
#elif defined(FRAMEPIPE_ASAN)
constexpr const char* kSanitizerLine = "built with: AddressSanitizer\n";
#else
constexpr const char* kSanitizerLine = "";
#endif
}  // namespace

std::string version_text() {
  std::string text = fmt::format("framepipe {} ({})\nFFmpeg: libavformat {}, libavcodec {}\n{}devices:", FRAMEPIPE_VERSION,
                                 FRAMEPIPE_GIT_COMMIT, AV_STRINGIFY(LIBAVFORMAT_VERSION), AV_STRINGIFY(LIBAVCODEC_VERSION),
                                 kSanitizerLine);
  for (const auto& line : describe_devices()) text += "\n  " + line;
  return text;
}

}  // namespace fp::cli
