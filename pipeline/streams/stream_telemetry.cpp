// What a stream shows: its state from what its executor published, its status, and the
// windows its fps and recent latency are measured over.
#include "pipeline/streams/manager_impl.hpp"

namespace fp {

namespace fs = std::filesystem;

RunStats StreamManager::Impl::published_stats(ManagedRun& run) {
  return run.ended ? run.result : run.monitor.snapshot();
}

StreamState StreamManager::Impl::refresh_state(ManagedRun& run, const RunStats& published) {
  StreamState state;
  if (!run.rejected.empty()) {
    state = StreamState::Failed;
  } else if (run.finished_on_disk && !run.started) {
    state = StreamState::Finished;
  } else if (!run.started) {
    state = StreamState::Waiting;
  } else if (awaiting_restart(run)) {
    state = StreamState::Reconnecting;  // a live stream that failed, waiting to be started again
  } else if (run.ended) {
    // Ended well, or stopped by drain(): either way its outputs are finalized. (Only an
    // input that ended by itself is saved as finished: a drained one runs again after a restart.)
    state = !run.error.empty() ? StreamState::Failed : StreamState::Finished;
  } else if (run.stop) {
    state = StreamState::Draining;
  } else {
    state = live_stream_state(published, run.monitor.reconnecting());
    // Started again after a failure: still reconnecting until its first frame.
    if (state == StreamState::Starting && run.restarts > 0) state = StreamState::Reconnecting;
  }
  if (state == StreamState::Running && run.running_at == Clock::time_point{}) run.running_at = Clock::now();
  if (state != run.state) {
    if (options.policy.log_changes) log_state_change(run, state);
    const bool counted = run.counted;  // counted under its new state from now on
    count_state(run, false);
    run.state = state;
    count_state(run, counted);
    run.since = std::chrono::system_clock::now();
  }
  return state;
}

void StreamManager::Impl::log_state_change(const ManagedRun& run, StreamState state) {
  const std::string& name = run.spec.name;
  switch (state) {
    case StreamState::Running:
      spdlog::info("stream {}: running", name);
      break;
    case StreamState::Reconnecting:
      if (!run.ended) spdlog::warn("stream {}: input lost, reconnecting", name);  // else plan_restart() said why
      break;
    case StreamState::Finished:
      spdlog::info("stream {}: finished, outputs finalized", name);
      break;
    case StreamState::Failed:
      spdlog::error("stream {}: failed: {}", name,
                    mask_uris_in_text(!run.rejected.empty() ? run.rejected : run.error));
      break;
    default:
      break;
  }
}

StreamStatus StreamManager::Impl::status_of(ManagedRun& run) {
  StreamStatus status;
  status.name = run.spec.name;
  status.pipeline = run.spec.pipeline;
  status.uri = mask_credentials(run.spec.uri);
  status.source = run.spec.source;
  status.stats = published_stats(run);
  status.state = refresh_state(run, status.stats);
  status.since = run.since;
  status.frames = status.stats.frames;
  status.fps = run.ended ? 0 : run.fps;
  status.cpu_cores = run.ended ? 0 : run.cpu_cores;
  status.dropped = status.stats.frames_dropped;
  status.latency_p50_ms = status.stats.latency_ms.percentile(50);
  status.latency_p99_ms = status.stats.latency_ms.percentile(99);
  if (!run.ended && !run.latency_samples.empty()) {
    const auto& [then, earlier] = run.latency_samples.front();
    const LatencyHistogram recent = status.stats.latency_ms.since(earlier);
    status.latency_recent_p50_ms = recent.percentile(50);
    status.latency_recent_p99_ms = recent.percentile(99);
    status.latency_recent_seconds = std::chrono::duration<double>(Clock::now() - then).count();
  }
  status.reconnects = input_reconnects(status.stats);
  status.restarts = run.restarts;
  if (awaiting_restart(run)) {
    status.restart_wait = run.restart_wait;
    status.next_restart = std::chrono::time_point_cast<std::chrono::system_clock::duration>(
        std::chrono::system_clock::now() + (*run.restart_at - Clock::now()));
  }
  status.last_error = !run.rejected.empty()                      ? run.rejected
                      : run.ended                                ? run.error
                      : status.state == StreamState::Waiting     ? waiting_for_text(run.waiting_for)
                      : status.state == StreamState::Reconnecting ? run.previous_error
                                                                  : std::string();
  status.outputs = run.plan.outputs;
  return status;
}


void StreamManager::Impl::sample(ManagedRun& run, RunStats published, Clock::time_point now) {
  run.samples.emplace_back(now, published.frames);
  if (run.latency_samples.empty() || now - run.latency_samples.back().first >= kLatencySampleEvery)
    run.latency_samples.emplace_back(now, std::move(published.latency_ms));
  while (run.latency_samples.size() > 2 && now - run.latency_samples[1].first >= kLatencyWindow)
    run.latency_samples.pop_front();
  while (run.samples.size() > 2 && now - run.samples[1].first >= kFpsWindow) run.samples.pop_front();
  const auto& [then, frames_then] = run.samples.front();
  const double seconds = std::chrono::duration<double>(now - then).count();
  run.fps = seconds > 0.2 ? static_cast<double>(run.samples.back().second - frames_then) / seconds : 0.0;
  run.cpu_window.add(now, run.cpu.seconds());
  run.own_cores = run.cpu_window.cores();
}

void StreamManager::Impl::attribute_cpu() {
  double own = 0;
  double pixels = 0;
  const auto pixel_rate = [](const ManagedRun& run) {
    return run.fps * run.opened_width.load(std::memory_order_relaxed) * run.opened_height.load(std::memory_order_relaxed);
  };
  std::size_t running = 0;
  for (const auto& [name, run] : streams) {
    if (!run->started || run->ended) continue;
    ++running;
    own += run->own_cores;
    pixels += pixel_rate(*run);
  }
  // The process's cores over the same window (measure_cpu: kept only with a budget of cores).
  const double rest = std::max(0.0, cpu_rate.cores() - own);
  for (auto& [name, run] : streams) {
    if (!run->started || run->ended) continue;
    const double share = pixels > 0 ? pixel_rate(*run) / pixels : 1.0 / static_cast<double>(running);
    run->cpu_cores = run->own_cores + rest * share;
  }
}

}  // namespace fp
