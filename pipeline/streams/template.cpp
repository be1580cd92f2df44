#include "pipeline/streams/template.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <utility>

#include "core/fnv1a.hpp"
#include "core/small_file.hpp"
#include "media/output_target.hpp"
#include "media/served_protocols.hpp"
#include "media/stream_uri.hpp"
#include "media/testsrc_uri.hpp"
#include "media/url_protocol.hpp"
#include "media/v4l2_uri.hpp"
#include "pipeline/definition/stream_pipeline.hpp"
#include "pipeline/engine/input_limits.hpp"
#include "stages/registry.hpp"

namespace fp {

namespace {

namespace fs = std::filesystem;
using OwnFile = StreamTemplates::OwnFile;

// A template is a page of YAML; a file far larger is a mistake (a recording named by error).
constexpr std::size_t kMaxTemplateBytes = std::size_t{1} << 20;

// The path with symlinks resolved as far as it exists, and lexically normal: what the
// file system will really touch.
fs::path resolved(const fs::path& path) {
  std::error_code ec;
  const fs::path absolute = fs::absolute(path, ec);
  const fs::path base = ec ? path : absolute;
  fs::path canonical = fs::weakly_canonical(base, ec);
  return (ec ? base : canonical).lexically_normal();
}

bool is_within(const fs::path& path, const fs::path& root) {
  const fs::path relative = path.lexically_relative(root);
  return !relative.empty() && *relative.begin() != "..";
}

std::string roots_text(const std::vector<fs::path>& roots) {
  if (roots.empty()) return "none is allowed (serve --allow-root DIR)";
  std::vector<std::string> names;
  for (const auto& root : roots) names.push_back(root.string());
  return fmt::format("allowed: {}", fmt::join(names, ", "));
}

// A protocol name from a client's URI, safe to echo: bounded (FFmpeg's own bound is 127).
std::string printable_protocol(const std::string& name) { return name.size() > 32 ? name.substr(0, 32) + "..." : name; }

std::string joined(const std::vector<std::string>& names) { return names.empty() ? "none" : fmt::format("{}", fmt::join(names, ", ")); }

// Inputs: the served network schemes and testsrc:// anywhere; files and cameras only under
// an allowed root. What is a file is what FFmpeg will open as one (url_protocol): anything
// else it would read through a protocol of its own (subfile, concat, cache, pipe, fd...),
// which opens local files or descriptors by names no root was checked against.
void confine_input(const std::string& uri, const std::vector<fs::path>& allow_roots) {
  if (is_testsrc_uri(uri)) return;
  if (served_protocol_whitelist(uri)) return;
  const std::string shown = mask_credentials(uri);
  std::string path;
  if (is_v4l2_uri(uri)) {
    try {
      path = parse_v4l2_uri(uri).device;
    } catch (const std::invalid_argument& e) {
      throw StreamRejected(422, fmt::format("input '{}': {}", shown, e.what()));
    }
  } else if (const UrlProtocol protocol = url_protocol(uri); protocol.is_file()) {
    path = file_protocol_path(uri);
  } else {
    throw StreamRejected(403, fmt::format("input '{}': not an input this service reads (FFmpeg would open it with its "
                                          "'{}' protocol): a file or v4l2:// camera under an allowed root, testsrc://, "
                                          "or one of {}",
                                          shown, printable_protocol(protocol.name), fmt::join(served_network_schemes(), " ")));
  }
  const fs::path real = resolved(path);
  for (const auto& root : allow_roots)
    if (is_within(real, root)) return;
  throw StreamRejected(403, fmt::format("input '{}' is outside the allowed roots ({})", shown, roots_text(allow_roots)));
}

// 403 for an output that is one of the service's own files, or lies in one's folder: a
// histogram's CSV over a template or the state file would stop the service at its next
// start, and a file beside them could be taken for one (the state file's temporaries, a
// ConfigMap's entries). Folders below theirs are fine: that is where an output root often is.
void keep_off_own_files(const fs::path& target, const std::string& where, const std::string& shown,
                        const std::vector<OwnFile>& own_files) {
  const fs::path real = resolved(target);
  for (const auto& own : own_files)
    if (target == own.given || target == own.real || real == own.given || real == own.real)
      throw StreamRejected(403, fmt::format("{}: '{}' would overwrite the service's {} {}", where, shown, own.what,
                                            own.real.string()));
  for (const auto& own : own_files)
    for (const fs::path& folder : {own.given.parent_path(), own.real.parent_path()})
      if (target.parent_path() == folder || real.parent_path() == folder)
        throw StreamRejected(403, fmt::format("{}: '{}' is in the folder of the service's {} {}: outputs go in a "
                                              "folder of their own",
                                              where, shown, own.what, own.real.string()));
}

// The frame size and rate an input's URI says (testsrc://WxH@FPS, v4l2 size=/fps=); unsaid
// (0) for a file, a network stream or a camera at its own size, which only opening tells.
// Throws StreamRejected 422 for a testsrc:// URI that does not parse.
struct UriFrames {
  int width = 0;
  int height = 0;
  double fps = 0;
  std::string fps_text;  // the rate as written, so that a refusal quotes the client
};

UriFrames uri_frames(const std::string& uri) {
  UriFrames frames;
  if (is_testsrc_uri(uri)) {
    TestSourceParams params;
    try {
      params = parse_testsrc_uri(uri);
    } catch (const std::exception& e) {
      throw StreamRejected(422, mask_uris_in_text(e.what()));
    }
    const std::string spec = uri.substr(0, uri.find('?'));
    const auto at = spec.find('@');
    frames = {.width = params.width,
              .height = params.height,
              .fps = params.fps.value(),
              .fps_text = at == std::string::npos ? "30" : spec.substr(at + 1)};
  } else if (is_v4l2_uri(uri)) {
    const V4l2Uri camera = parse_v4l2_uri(uri);  // well formed: confine_input parsed it
    if (int width = 0, height = 0; parse_frame_size(camera.size, width, height)) {
      frames.width = width;
      frames.height = height;
    }
    if (!camera.fps.empty()) {
      const auto slash = camera.fps.find('/');
      frames.fps = slash == std::string::npos
                       ? std::stod(camera.fps)
                       : std::stod(camera.fps.substr(0, slash)) / std::stod(camera.fps.substr(slash + 1));
      frames.fps_text = camera.fps;
    }
  }
  return frames;
}

// 422 for an input whose URI asks for frames larger or faster than the limits; a file's or a
// camera's real size is checked again when it opens (RunOptions::input_limits).
void check_input_limits(const std::string& uri, const UriFrames& frames, const InputLimits& limits) {
  std::string problem;
  if (frames.width > 0) problem = input_size_problem(frames.width, frames.height, limits);
  if (problem.empty() && !frames.fps_text.empty()) problem = input_rate_problem(frames.fps, frames.fps_text, limits);
  if (!problem.empty()) throw StreamRejected(422, fmt::format("input '{}': {}", mask_credentials(uri), problem));
}

// An output path relative to the output root, kept inside it (no "..", no symlink out; the
// stream then creates it beneath the root's directory, PathConfinement) and off the
// service's own files; network outputs and null as they are. An HLS playlist is refused: its
// muxer writes, renames and deletes segment files by name, which no open beneath the root
// can hold to it. Returns what the stream writes.
std::string confine_output(const std::string& output, const std::string& where, const fs::path& output_root,
                           const std::vector<OwnFile>& own_files) {
  if (output.empty() || output == "null") return output;
  const std::string shown = mask_credentials(output);
  try {
    const OutputKind kind = parse_output_target(output).kind;
    if (is_network_output(kind)) return output;
    if (kind == OutputKind::Hls)
      throw StreamRejected(403, fmt::format("{}: '{}': a service stream writes no HLS playlist (its segments are "
                                            "written and deleted by name); use .mp4, .mkv, .ts or .y4m",
                                            where, shown));
  } catch (const std::invalid_argument&) {
    // Not a media output (luma_histogram's text file): a file like any other.
  }
  if (!url_protocol(output).is_file())
    throw StreamRejected(403, fmt::format("{}: '{}' is no file under the output root", where, shown));
  const std::string path = file_protocol_path(output);
  if (path.empty() || fs::path(path).is_absolute())
    throw StreamRejected(403, fmt::format("{}: '{}' must be a path relative to the output root {}", where, shown,
                                          output_root.string()));
  const fs::path target = (output_root / path).lexically_normal();
  if (!is_within(target, output_root) || !is_within(resolved(target), output_root))
    throw StreamRejected(403, fmt::format("{}: '{}' leads outside the output root {}", where, shown, output_root.string()));
  keep_off_own_files(target, where, shown, own_files);
  return target.string();
}

std::string first_decode_stage(const PipelineDefinition& definition) {
  if (!definition.stream_stage.empty()) return definition.stream_stage;
  for (const auto& stage : definition.stages)
    if (is_source(stage)) return stage.id;
  return "";
}

}  // namespace

StreamTemplates::StreamTemplates(std::map<std::string, fs::path> files, StreamRoots roots, AutoBackend auto_backend,
                                 InputLimits limits)
    : auto_backend_(std::move(auto_backend)), limits_(limits) {
  for (auto& root : roots.allow_roots) roots_.allow_roots.push_back(resolved(root));
  roots_.output_root = resolved(roots.output_root.empty() ? fs::current_path() : roots.output_root);
  const auto own = [this](const fs::path& file, std::string what) {
    std::error_code ec;
    const fs::path absolute = fs::absolute(file, ec);
    own_files_.push_back({(ec ? file : absolute).lexically_normal(), resolved(file), std::move(what)});
  };
  for (const auto& file : roots.own_files) own(file.path, file.what);
  for (const auto& [name, file] : files) own(file, fmt::format("template '{}'", name));
  for (auto& [name, file] : files) {
    try {
      templates_.emplace(name, std::make_shared<const Template>(read_template(file)));
    } catch (const std::exception& e) {
      // A configuration error, exit 2, as `framepipe validate` and `run` of that file say it is.
      throw UsageError(fmt::format("pipeline template '{}' ({}) does not load:\n{}", name, file.string(),
                                   mask_uris_in_text(e.what())));
    }
  }
}

StreamTemplates::Template StreamTemplates::read_template(const fs::path& file) const {
  Template t;
  t.file = file;
  try {
    // Never blocking (a FIFO in its place is refused, not waited on): the reload runs on
    // serve's main thread, which must go on seeing signals.
    t.text = read_small_file(file, kMaxTemplateBytes);
  } catch (const SmallFileError& e) {
    throw std::runtime_error(fmt::format("{}: cannot read: {}", file.string(), e.what()));
  }
  t.digest = fmt::format("{:016x}", fnv1a64(t.text));
  t.definition = parse_pipeline(t.text, file.string(), {}, auto_backend_);
  t.decode_stage = first_decode_stage(t.definition);
  for (const auto& stage : t.definition.stages)
    if (const auto source = source_uri(stage)) {
      const UriFrames frames = uri_frames(*source);  // it loaded: a testsrc:// of it parses
      if (frames.width * frames.height > t.width * t.height) {
        t.width = frames.width;
        t.height = frames.height;
      }
      t.fps = std::max(t.fps, frames.fps);
    }
  return t;
}

std::shared_ptr<const StreamTemplates::Template> StreamTemplates::find(const std::string& name) const {
  std::lock_guard lock(mutex_);
  const auto found = templates_.find(name);
  return found == templates_.end() ? nullptr : found->second;
}

std::string StreamTemplates::digest(const std::string& name) const {
  const std::shared_ptr<const Template> found = find(name);
  return found ? found->digest : std::string();
}

TemplateReload StreamTemplates::reload() {
  TemplateReload report;
  std::map<std::string, std::shared_ptr<const Template>> current;
  {
    std::lock_guard lock(mutex_);
    current = templates_;
  }
  for (const auto& [name, old] : current) {
    try {
      auto fresh = std::make_shared<const Template>(read_template(old->file));
      if (fresh->text == old->text) continue;
      std::lock_guard lock(mutex_);
      templates_[name] = std::move(fresh);
      report.changed.push_back(name);
    } catch (const std::exception& e) {
      // Unchanged or not, what cannot be read or loaded now is not taken: the last good text
      // stays in force, for new streams and for restarts alike.
      report.refused.push_back(fmt::format("pipeline template '{}' ({}) was not reloaded; the one read before stays "
                                           "in force:\n{}",
                                           name, old->file.string(), mask_uris_in_text(e.what())));
    }
  }
  return report;
}

std::vector<std::string> StreamTemplates::names() const {
  std::lock_guard lock(mutex_);
  std::vector<std::string> names;
  for (const auto& [name, t] : templates_) names.push_back(name);
  return names;
}

std::vector<PipelineDefinition> StreamTemplates::loaded() const {
  std::lock_guard lock(mutex_);
  std::vector<PipelineDefinition> all;
  for (const auto& [name, t] : templates_) all.push_back(t->definition);
  return all;
}

StreamPlan StreamTemplates::plan(const StreamSpec& spec) const {
  check_stream_name(spec.name);
  const std::shared_ptr<const Template> found = find(spec.pipeline);
  if (!found)
    throw StreamRejected(422, fmt::format("pipeline: unknown template '{}' (known: {})", printable_name(spec.pipeline),
                                          joined(names())));
  if (spec.uri.empty()) throw StreamRejected(400, "uri: missing (the stream's input)");
  const Template& t = *found;

  // Exactly `framepipe validate FILE -i URI --set ...`: the same loader, the same lines.
  ConfigOverrides overrides;
  overrides.inputs = {spec.uri};
  for (const auto& [target, value] : spec.sets) overrides.sets.push_back(target + "=" + value);
  for (const auto& [param, value] : spec.decode) overrides.sets.push_back(t.decode_stage + "." + param + "=" + value);
  PipelineDefinition loaded;
  try {
    loaded = parse_pipeline(t.text, t.file.string(), overrides, auto_backend_);
  } catch (const ConfigError& e) {
    throw StreamRejected(422, e.what());  // the issues, one a line, as validate prints them
  } catch (const std::exception& e) {
    throw StreamRejected(422, mask_uris_in_text(e.what()));
  }

  // One stream named after the service's stream: its {stream} is that name.
  if (!loaded.streams.empty()) {
    loaded.streams.resize(1);
    loaded.streams.front().name = spec.name;
  }
  StreamPlan plan;
  plan.template_digest = t.digest;
  plan.definition = stream_pipeline(loaded, 0);
  PipelineDefinition& definition = plan.definition;
  definition.streams.clear();
  definition.stream_stage.clear();
  definition.files.clear();
  std::vector<std::string> inputs;
  for (auto& stage : definition.stages) {
    if (const auto source = source_uri(stage)) {
      const std::string& uri = *source;
      confine_input(uri, roots_.allow_roots);
      const UriFrames frames = uri_frames(uri);
      check_input_limits(uri, frames, limits_);
      inputs.push_back(uri);
      // The largest input's: what the stream's frames are sized by (its memory at admission).
      if (frames.width * frames.height > plan.width * plan.height) {
        plan.width = frames.width;
        plan.height = frames.height;
      }
      plan.fps = std::max(plan.fps, frames.fps);
    }
    for (const auto& param : path_params(stage)) {
      const std::string where = fmt::format("stage '{}' {}", stage.id, param.name);
      stage.params.set(param.name, confine_output(with_stream_name(param.path, spec.name), where, roots_.output_root,
                                                  own_files_));
    }
  }
  add_plan_files(plan, spec.name);
  plan.endless = endless_inputs(inputs);
  if (plan.width == 0) {  // the URI says no size: the template's own input's, until it opens
    plan.width = t.width;
    plan.height = t.height;
  }
  if (plan.fps == 0) plan.fps = t.fps;
  // What was checked here is opened beneath these roots when the stream starts.
  definition.confinement = PathConfinement{.input_roots = roots_.allow_roots, .output_root = roots_.output_root};
  // The stream's own outputs against its own inputs, now that they are where it writes them.
  check_stream_clashes(plan);
  return plan;
}

void check_stream_clashes(const StreamPlan& plan) {
  if (const std::string message = clash_message(plan.files); !message.empty()) throw StreamRejected(422, message);
}

}  // namespace fp
