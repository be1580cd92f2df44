// A stream's run: its thread (waiting for the run it replaces, then the executor), its start,
// and the restarts of a live stream that failed.
#include "pipeline/streams/manager_impl.hpp"

#include "core/freed_memory.hpp"

namespace fp {

namespace fs = std::filesystem;

Clock::duration heartbeat_limit(const PipelineDefinition& definition) {
  Clock::duration limit = kStalledRunLimit;
  for (const auto& stage : definition.stages)
    if (is_source(stage) && stage.params.has("timeout_ms"))
      limit = std::max<Clock::duration>(limit, std::chrono::milliseconds(2 * stage.params.integer("timeout_ms")) + 2s);
  return limit;
}

std::shared_ptr<ManagedRun> StreamManager::Impl::make_run(const StreamSpec& spec, StreamPlan plan) {
  auto run = std::make_shared<ManagedRun>();
  run->spec = spec;
  run->plan = std::move(plan);
  run->heartbeat_limit = heartbeat_limit(run->plan.definition);
  run->order = next_order++;
  run->id = next_run_id++;
  run->device = options.devices[next_device++ % options.devices.size()];
  run->backoff = RestartBackoff(options.restart);
  run->load = load_of(spec, run->plan);
  return run;
}

bool StreamManager::Impl::restartable(const ManagedRun& run) const {
  return options.policy.restarts_failed() && run.plan.endless && !run.error.empty() && !run.stop && !draining &&
         !run.refused_capacity;
}

bool StreamManager::Impl::awaiting_restart(const ManagedRun& run) { return run.ended && run.restart_at && !run.stop; }

void StreamManager::Impl::release_kept_place(ManagedRun& run) {
  if (run.ended && run.owns_place.exchange(false)) limiter.release(run.load);
}

void StreamManager::Impl::plan_restart(ManagedRun& run) {
  const auto ran = run.running_at == Clock::time_point{} ? Clock::duration::zero() : run.ended_at - run.running_at;
  run.restart_wait = run.backoff.after_failure(ran);
  run.restart_at = run.ended_at + run.restart_wait;
  spdlog::warn("stream {}: failed: {}; starting it again in {} s (restart {})", run.spec.name,
               mask_uris_in_text(run.error), std::chrono::duration<double>(run.restart_wait).count(),
               run.restarts + 1);
}

void StreamManager::Impl::restart(const std::shared_ptr<ManagedRun>& old) {
  const std::string& name = old->spec.name;
  std::shared_ptr<ManagedRun> next;
  try {
    StreamPlan plan = planner->plan(old->spec);
    keep_earlier_outputs(plan);
    next = make_run(old->spec, std::move(plan));
  } catch (const StreamRejected& e) {  // its template or roots no longer allow it: it stays failed
    next = make_run(old->spec, StreamPlan{});
    next->rejected = fmt::format("cannot be started again: {}", mask_uris_in_text(e.what()));
  }
  next->order = old->order;
  next->device = old->device;
  next->backoff = old->backoff;
  next->restarts = old->restarts + 1;
  next->previous_error = old->error;
  next->state = old->state;  // reconnecting, and since when: one state for the whole outage
  next->since = old->since;
  next->finished_on_disk = old->finished_on_disk;
  const bool place = old->owns_place.exchange(false);
  if (place) limiter.transfer(old->load, next->load);  // the place kept holds the new run's load now
  streams[name] = next;
  count_state(*next, true);  // in its predecessor's state (reconnecting), as retire uncounts that one
  files.add(next->id, name, next->plan.files);
  retire(old);
  if (!next->rejected.empty()) {
    if (place) limiter.release(next->load);
    return;
  }
  spdlog::info("stream {}: starting it again (restart {})", name, next->restarts);
  next->owns_place = place;
  start(next);
}

void StreamManager::Impl::run_stream(Impl& impl, ManagedRun& run) {
  if (run.predecessor) {
    // Until the predecessor has finalized its outputs (bounded by its executor's own
    // deadlines): its thread sets `ended` under the mutex and then notifies `wake`, so this
    // wakes on it, not at a poll's next step. The bound is for a stop of this run, which a
    // change notifies too, as a safety net.
    std::unique_lock lock(impl.mutex);
    while (!run.predecessor->ended.load() && !run.stop.load()) impl.wake.wait_for(lock, kPredecessorStopCheck);
  }
  run.predecessor.reset();  // outside the mutex: the last reference to it may be this one
  if (!run.stop.load()) {
    if (impl.options.policy.output_folders == StreamPolicy::OutputFolders::Make)
      for (const auto& use : run.plan.files) {
        std::error_code ec;  // a folder that cannot be made: the run says why it cannot write
        if (use.written && !is_network_output(use.path)) fs::create_directories(fs::path(use.path).parent_path(), ec);
      }
    RunOptions options = impl.options.run;
    options.input_limits = impl.options.input_limits;  // a file or camera larger than the URI could say
    options.cpu_account = &run.cpu;
    options.input_opened = [&impl, &run](int width, int height) {
      run.opened_width = width;
      run.opened_height = height;
      if (impl.options.admit_by_request) impl.recheck_memory(run, width, height);
    };
    options.stop = &run.stop;
    options.monitor = &run.monitor;  // progress as the client asked (serve: off; run: one stream on a terminal)
    // The one place a run's pacing and drop policy are decided from its pipeline (`run` and
    // serve alike): the client's options, and what the pipeline itself says.
    options.realtime = options.realtime || runs_in_realtime(run.plan.definition);
    if (run.plan.definition.drop != DropPolicy::Auto) options.drop = run.plan.definition.drop;
    try {
      run.result = run_pipeline(run.plan.definition, run.device, options, &run.result);
    } catch (const std::exception& e) {
      run.error = mask_uris_in_text(e.what());
      if (run.error.empty()) run.error = "failed";
      run.failure = std::current_exception();
    }
    // serve: a camera or live stream does not end by itself. One that ended (its server
    // closed the stream, and its input's own reconnects, if any, gave up) failed, and is
    // started again as any live stream that failed; it was shown `finished`, never again.
    if (run.error.empty() && run.plan.endless && !run.stop && !run.result.interrupted &&
        impl.options.policy.restarts_failed())
      run.error = "its live input ended (a camera or live stream does not end by itself)";
  } else {
    // Stopped before it began (another stream failed first, a signal, a drain): it did not
    // end by itself, and its report says so ("stopped (another stream failed)", not "ok").
    run.result.interrupted = true;
  }
  // Its graph, frames and encoders are freed by now: their pages go back before its place is
  // given to the next stream (core/freed_memory.hpp), not kept in this thread's arena.
  give_freed_memory_back();
  std::lock_guard lock(impl.mutex);
  run.ended_at = Clock::now();
  const bool keeps_place = impl.restartable(run);
  if (keeps_place) impl.plan_restart(run);
  // Before its place is given back: under OnFailure::StopAll no waiting stream takes it.
  if (!run.error.empty() && !run.stop && impl.options.policy.stops_all_on_failure()) impl.stop_everything();
  // Its place, unless kept for its restart. Whoever gets to an ended run's place first gives
  // it back (remove/put/drain, under this mutex too): the exchange lets only one do it.
  if (!keeps_place && run.owns_place.exchange(false)) impl.limiter.release(run.load);
  run.ended = true;
  if (run.removed) impl.count_state(run, false);  // finalized: no longer listed
  // Retired (removed, replaced, restarted): its files are free now for any stream.
  if (const auto found = impl.streams.find(run.spec.name); found == impl.streams.end() || found->second.get() != &run)
    impl.files.remove(run.id);
  // The supervisor joins this thread and then gives its place to the first stream waiting
  // (supervise(): reap, then start_waiting), now rather than at its next look: a folder of
  // short files runs back to back, and never holds the stack of one that ended beside the
  // one that starts (a data limit counts both). Nothing below takes the mutex: the joining
  // thread holds it. (Without the supervisor thread, the client's look() does the same.)
  impl.reap_due = true;
  impl.wake.notify_all();
}

void StreamManager::Impl::start(const std::shared_ptr<ManagedRun>& run) {
  run->started = true;
  run->started_at = Clock::now();
  try {
    run->thread = std::thread([this, one = run.get()] { run_stream(*this, *one); });
  } catch (const std::system_error& e) {
    run->error = std::string("cannot start its thread: ") + e.what();
    if (run->owns_place.exchange(false)) limiter.release(run->load);
    run->predecessor.reset();
    run->ended = true;
  }
}

void StreamManager::Impl::reap() {
  for (auto& [name, run] : streams) {
    if (!run->ended || !run->thread.joinable()) continue;
    run->thread.join();
    // An ended run shows no fps nor recent latency (status_of): its windows go with its thread.
    decltype(run->samples)().swap(run->samples);
    decltype(run->latency_samples)().swap(run->latency_samples);
  }
  for (auto& run : retiring)
    if (run->ended && run->thread.joinable()) run->thread.join();
  std::erase_if(retiring, [this](const std::shared_ptr<ManagedRun>& run) {
    const bool gone = run->ended || !run->started;
    if (gone) {
      files.remove(run->id);
      count_state(*run, false);  // a removed run that never started: listed until now
    }
    return gone;
  });
}

void StreamManager::Impl::retire(const std::shared_ptr<ManagedRun>& run) {
  if (run->ended) files.remove(run->id);
  count_state(*run, finalizing_removed(*run));  // listed until it ends if removed; a replaced one is not
  retiring.push_back(run);
}

bool StreamManager::Impl::all_ended() const {
  for (const auto& [name, run] : streams)
    if (run->started && !run->ended) return false;
  for (const auto& run : retiring)
    if (run->started && !run->ended) return false;
  return true;
}

std::shared_ptr<ManagedRun> StreamManager::Impl::unfinished_run_named(const std::string& name) const {
  if (const auto found = streams.find(name); found != streams.end() && found->second->started && !found->second->ended)
    return found->second;
  for (auto it = retiring.rbegin(); it != retiring.rend(); ++it)
    if ((*it)->spec.name == name && (*it)->started && !(*it)->ended) return *it;
  return nullptr;
}

}  // namespace fp
