// `framepipe serve`: the stream manager behind the HTTP API (service/), until a signal or
// POST /v1/drain asks it to drain: then every stream finalizes its outputs and the process
// exits 0, or 1 naming the streams that did not finish within --drain-timeout. A second
// signal ends the process at once (interrupt.hpp), and so does a SIGINT or SIGTERM after
// POST /v1/drain (it was the first). SIGHUP reads the stream list again (reload_signal.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "pipeline/definition/config_error.hpp"
#include "pipeline/engine/device.hpp"
#include "pipeline/stream_list/list.hpp"
#include "pipeline/stream_list/list_sync.hpp"
#include "pipeline/stream_list/shard.hpp"
#include "pipeline/capacity/capacity.hpp"
#include "pipeline/streams/manager.hpp"
#include "service/api_service.hpp"
#include "service/bearer_token.hpp"
#include "service/listen_address.hpp"
#include "service/metrics.hpp"
#include "service/status_page.hpp"
#include "service/systemd_notifier.hpp"
#include "tools/framepipe/capacity_options.hpp"
#include "tools/framepipe/commands.hpp"
#include "tools/framepipe/interrupt.hpp"
#include "tools/framepipe/reload_signal.hpp"

namespace fp::cli {

namespace {

namespace fs = std::filesystem;

// Template name (the file's stem) -> file; two files of one stem are a usage error.
std::map<std::string, fs::path> pipeline_templates(const std::vector<std::string>& files) {
  std::map<std::string, fs::path> templates;
  for (const auto& file : files) {
    const std::string name = fs::path(file).stem().string();
    const auto [it, added] = templates.emplace(name, file);
    if (!added)
      throw UsageError(fmt::format("{} and {} are both named '{}' (a template is named by its file's stem): rename one",
                                   it->second.string(), file, name));
  }
  return templates;
}

service::ListenAddress listen_address(const ServeArguments& args) {
  try {
    return service::parse_listen_address(args.listen);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

std::string bearer_token(const ServeArguments& args, const service::ListenAddress& listen) {
  if (args.token_file.empty()) {
    if (!listen.loopback())
      throw UsageError(fmt::format("--listen {} is reachable from other machines: give --token-file FILE (a bearer "
                                   "token every request must carry), or listen on 127.0.0.1",
                                   args.listen));
    return "";
  }
  std::string token;
  try {
    token = service::read_token_file(args.token_file);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  if (const std::string warning = service::token_file_access_warning(args.token_file); !warning.empty())
    fmt::print(stderr, "framepipe serve: warning: {}\n", warning);
  return token;
}

InputLimits input_limits(const ServeArguments& args) {
  InputLimits limits;
  if (!parse_frame_size(args.max_input_size, limits.max_width, limits.max_height))
    throw UsageError(fmt::format("--max-input-size {}: expected WIDTHxHEIGHT, each at least 1 (e.g. 3840x2160)",
                                 args.max_input_size));
  limits.max_fps = args.max_input_fps;
  return limits;
}

// --output-root, or ./framepipe-output made now: outputs never land among the files the
// service was started with.
fs::path output_root(const ServeArguments& args) {
  if (!args.output_root.empty()) return fs::absolute(args.output_root);
  const fs::path root = fs::absolute(kDefaultOutputRoot);
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) throw std::runtime_error(fmt::format("cannot make the output root {} (or give --output-root DIR): {}",
                                               root.string(), ec.message()));
  return root;
}

// The files a stream may never write, nor beside (the templates are StreamTemplates' own).
std::vector<ServiceFile> own_files(const ServeArguments& args) {
  std::vector<ServiceFile> files;
  if (!args.stream_list.empty()) files.push_back({fs::absolute(args.stream_list), "stream list (--stream-list)"});
  if (!args.token_file.empty()) files.push_back({fs::absolute(args.token_file), "token file (--token-file)"});
  return files;  // the state file: the manager adds it (it owns it)
}

// --restart-wait and --restart-wait-max, in seconds, as --drain-timeout is.
RestartPolicy restart_policy(const ServeArguments& args) {
  if (args.restart_wait_max < args.restart_wait)
    throw UsageError(fmt::format("--restart-wait-max {}: must be at least --restart-wait ({})", args.restart_wait_max,
                                 args.restart_wait));
  const auto millis = [](double seconds) {
    return std::chrono::milliseconds(static_cast<long long>(std::clamp(seconds * 1000, 1.0, 1e12)));
  };
  RestartPolicy policy;
  policy.first = millis(args.restart_wait);
  policy.longest = millis(args.restart_wait_max);
  return policy;
}

// --cost TEMPLATE=FILE: each a bench --pipeline result of a template served; a usage error
// naming the option otherwise.
std::map<std::string, PipelineCost> template_costs(const ServeArguments& args,
                                                   const std::map<std::string, fs::path>& templates) {
  std::map<std::string, PipelineCost> costs;
  for (const auto& text : args.costs) {
    const auto equals = text.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
      throw UsageError(fmt::format("--cost {}: expected TEMPLATE=FILE", text));
    const std::string name = text.substr(0, equals);
    if (!templates.contains(name))
      throw UsageError(fmt::format("--cost {}: no template named {} (the templates are the pipeline files' stems)",
                                   text, name));
    costs[name] = read_cost_file("--cost " + text, text.substr(equals + 1));
  }
  return costs;
}

StreamManagerOptions manager_options(const ServeArguments& args, std::map<std::string, fs::path> templates,
                                     std::vector<Device> devices) {
  StreamManagerOptions options;
  options.template_costs = template_costs(args, templates);
  options.budget = machine_budget_for(args.cpu_budget, devices);
  if (args.memory_budget_mib > 0) options.budget.host_bytes = args.memory_budget_mib * (1 << 20);
  options.admit_by_request = true;
  options.pipelines = std::move(templates);
  for (const auto& root : args.allow_roots) options.roots.allow_roots.push_back(fs::absolute(root));
  options.roots.output_root = output_root(args);
  options.roots.own_files = own_files(args);
  options.input_limits = input_limits(args);
  options.max_streams = args.max_streams;
  options.max_waiting = args.max_waiting;
  options.devices = std::move(devices);
  options.run.progress = false;
  options.state_file = args.state_file;
  options.has_stream_list = !args.stream_list.empty();
  options.restart = restart_policy(args);
  options.restore_at_start = false;  // after the listener starts: /livez answers meanwhile
  return options;
}

Shard shard_of(const ServeArguments& args) {
  if (args.shard.empty()) return Shard{};
  if (args.stream_list.empty())
    throw UsageError("--shard " + args.shard + ": give --stream-list FILE too (a shard is a part of a stream list)");
  try {
    return shard_from_argument(args.shard);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

// The list's streams, kept running from now on; none without --stream-list. A list that
// cannot be read at start is a usage error: a pod must not come up running nothing.
std::unique_ptr<StreamListSync> start_stream_list(const ServeArguments& args, StreamManager& manager, Shard shard,
                                                  const std::string& default_pipeline) {
  if (args.stream_list.empty()) return nullptr;
  try {
    auto sync = std::make_unique<StreamListSync>(
        manager, StreamListSyncOptions{.file = args.stream_list,
                                       .shard = shard,
                                       .default_pipeline = default_pipeline,
                                       .poll = std::chrono::milliseconds(std::llround(args.stream_list_poll * 1000))});
    const auto status = sync->status();
    fmt::print(stderr, "framepipe serve: stream list {}: {} listed, {} for shard {}\n", args.stream_list, status.listed,
               status.assigned, shard.to_string());
    return sync;
  } catch (const StreamListError& e) {
    throw UsageError(e.what());
  }
}

// SIGHUP: the templates are read again (the only time after the start that they are: a
// stream restarted during an edit must not read half a file), then the list, now rather
// than at its next poll (an operator who edited it need not wait, and the log says it was
// done); without a list there is no list to read.
void reload(const ServeArguments& args, StreamManager& manager, StreamListSync* stream_list) {
  const auto templates = manager.reload_templates();
  for (const auto& refusal : templates.templates.refused) fmt::print(stderr, "framepipe serve: SIGHUP: error: {}\n", refusal);
  if (templates.templates.changed.empty() && templates.templates.refused.empty())
    fmt::print(stderr, "framepipe serve: SIGHUP: the pipeline templates are unchanged\n");
  for (const auto& name : templates.templates.changed)
    fmt::print(stderr, "framepipe serve: SIGHUP: pipeline template '{}' changed; its streams start again with it\n", name);
  if (!templates.restarted.empty())
    fmt::print(stderr, "framepipe serve: SIGHUP: restarted with their new template: {}\n", fmt::join(templates.restarted, ", "));
  for (const auto& refusal : templates.refused)
    fmt::print(stderr, "framepipe serve: SIGHUP: error: stream {} (it runs on as it was)\n", refusal);
  if (!stream_list) {
    fmt::print(stderr, "framepipe serve: SIGHUP: no --stream-list, nothing to reload\n");
  } else {
    fmt::print(stderr, "framepipe serve: SIGHUP: reading the stream list {} again\n", args.stream_list);
    stream_list->reload();
  }
  std::fflush(stderr);
}

}  // namespace

int serve_command(const ServeArguments& args) {
  const std::atomic<bool>& signalled = install_interrupt_handler();
  std::atomic<bool>& reload_asked = install_reload_handler();
  auto templates = pipeline_templates(args.pipelines);
  const auto listen = listen_address(args);
  const std::string token = bearer_token(args, listen);
  const std::string default_pipeline =
      args.deepstream_pipeline.empty() ? fs::path(args.pipelines.front()).stem().string() : args.deepstream_pipeline;
  if (!templates.count(default_pipeline)) {
    // The names there are, so that a typo is seen at once.
    std::vector<std::string> names;
    for (const auto& [name, file] : templates) names.push_back(name);
    throw UsageError(fmt::format(
        "--deepstream-pipeline {}: no pipeline file of that name (the names are the files' stems: {})",
        default_pipeline, fmt::join(names, ", ")));
  }

  const Shard shard = shard_of(args);
  const std::vector<Device> devices = resolve_devices(args.device);
  StreamManager manager(manager_options(args, std::move(templates), devices));
  // Set once the list is in force, before the loop below; read by the HTTP threads (which
  // start before it) through the atomic.
  std::unique_ptr<StreamListSync> stream_list;
  std::atomic<StreamListSync*> stream_list_ready{nullptr};
  const std::function<std::optional<StreamListStatus>()> stream_list_status =
      [&stream_list_ready]() -> std::optional<StreamListStatus> {
    StreamListSync* list = stream_list_ready.load();
    if (!list) return std::nullopt;
    return list->status();
  };

  // GET /metrics: the streams' families read from the manager at each scrape (metrics.hpp).
  service::StreamMetricsSource metrics_source = service::manager_metrics_source(manager, devices, FRAMEPIPE_VERSION);
  metrics_source.stream_list = stream_list_status;
  service::Metrics metrics(std::move(metrics_source));

  std::atomic<bool> drain_asked{false};
  service::ApiServiceOptions api_options;
  api_options.http.listen = listen;
  api_options.http.token = token;
  api_options.http.allowed_hosts = args.allow_hosts;
  if (!args.probe_listen.empty()) {
    try {
      api_options.probe_listen = service::parse_listen_address(args.probe_listen, "--probe-listen");
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  api_options.default_pipeline = default_pipeline;
  api_options.version = FRAMEPIPE_VERSION;
  api_options.devices = describe_devices();
  api_options.on_drain = [&] {
    note_stop_requested();  // a signal now is the second one: it ends the process at once
    drain_asked = true;
  };
  api_options.metrics = [&metrics] { return metrics.scrape(); };
  api_options.on_request = [&metrics](const std::string& route, int status) { metrics.count_request(route, status); };
  api_options.page = std::string(service::status_page_html());
  api_options.stream_list = stream_list_status;
  const std::optional<service::ListenAddress> api_options_probe_listen = api_options.probe_listen;
  service::ApiService api(manager, std::move(api_options));
  const int port = api.start();
  fmt::print(stderr, "framepipe serve: listening on http://{}\n", service::ListenAddress{listen.host, port}.to_string());
  if (api_options_probe_listen)
    fmt::print(stderr, "framepipe serve: probes on http://{}\n",
               service::ListenAddress{api_options_probe_listen->host, api.probe_port()}.to_string());
  std::fflush(stderr);
  // systemd (Type=notify): started once it serves, as /livez does, so that a long restore
  // cannot run into the unit's start timeout; the watchdog follows the manager's supervisor
  // and the listener (what a restart can mend), never a stream's progress.
  service::SystemdNotifier systemd;
  systemd.send("READY=1\nSTATUS=restoring the streams");
  systemd.start_watchdog([&manager, &api] { return manager.supervising() && api.listening(); });
  // Now that /livez answers (an orchestrator's startup probe): the state file's streams,
  // then the list. /readyz says 503 and changes are refused until both are in force.
  const auto restore_started = std::chrono::steady_clock::now();
  manager.restore();
  stream_list = start_stream_list(args, manager, shard, default_pipeline);
  stream_list_ready = stream_list.get();
  manager.begin_serving();
  const auto streams_at_start = manager.list().size();
  fmt::print(stderr, "framepipe serve: ready: {} stream{} restored or listed in {:.1f} s\n", streams_at_start,
             streams_at_start == 1 ? "" : "s",
             std::chrono::duration<double>(std::chrono::steady_clock::now() - restore_started).count());
  std::fflush(stderr);
  systemd.send(fmt::format("STATUS=serving; {} stream{} at start", streams_at_start, streams_at_start == 1 ? "" : "s"));

  while (!signalled.load() && !drain_asked.load()) {
    if (reload_asked.exchange(false)) reload(args, manager, stream_list.get());
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  api.begin_drain();  // /readyz 503 and adds refused before the first stream is stopped
  if (stream_list) stream_list->stop();  // nor may the list put streams back
  const auto streams = manager.list();
  fmt::print(stderr, "framepipe serve: draining {} stream{} (at most {} s; a second signal ends at once)\n",
             streams.size(), streams.size() == 1 ? "" : "s", args.drain_timeout);
  std::fflush(stderr);
  systemd.send(fmt::format("STOPPING=1\nSTATUS=draining {} stream{}", streams.size(), streams.size() == 1 ? "" : "s"));
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(args.drain_timeout * 1000));
  const bool finished = manager.drain(timeout);
  if (finished) ignore_stop_signals();  // nothing left to cut short: a late SIGTERM must not make it exit 130
  systemd.stop_watchdog();  // before the listener stops, which would read as unhealthy
  api.stop();
  if (!finished) {
    const auto late = manager.unfinished();
    fmt::print(stderr, "framepipe serve: error: drain timed out after {} s; not finished: {}\n", args.drain_timeout,
               late.empty() ? std::string("(none listed)") : fmt::format("{}", fmt::join(late, ", ")));
    std::fflush(stderr);
    // The manager's destructor would wait for those streams without a limit: end here.
    _exit(kRuntimeError);
  }
  fmt::print(stderr, "framepipe serve: drained; every stream's outputs finalized\n");
  return kOk;
}

}  // namespace fp::cli
