// The stream manager: desired state (the map of specs, saved to the state file) apart from
// what runs (a Run per executor, on its own thread). One supervisor thread looks at every
// run a few times a second: it measures fps, starts streams waiting for a place, starts
// again the live streams that failed once their wait is over, marks file inputs that ended
// as finished (saved, so a restart does not redo them), and joins the threads of runs that
// ended.
//
// Restarts: a live run (plan.endless) that fails by itself keeps its limiter place when it
// ends (so no API add takes it) and gets a restart time (RestartBackoff); when it is due the
// supervisor puts a successor Run of the same spec in its place, which inherits the place,
// the back-off and the count. Whoever takes an ended run that still owns a place out of the
// desired state (remove, a replacing put, drain) gives the place back; owns_place is
// exchanged, so a place is given back exactly once whoever gets there first.
//
// Locking: one mutex guards the maps and every Run's non-atomic fields. A Run's thread
// touches only its atomics, its monitor (thread-safe) and, before it sets `ended`, its
// result; readers look at the result only once `ended` is set. The thread sets `ended` (and
// decides whether it keeps its place for a restart) under the mutex, so that remove/put/drain
// see either a run still going (whose thread will give its place back, being stopped) or an
// ended one (whose place they give back). A change (put, remove) holds
// save_mutex from its checks through writing the state file to making the change, so that
// the file always says what is then made, and changes happen one at a time; it takes the
// mutex only briefly inside that, never the other way round, so a slow disk holds up no reader.
#include <pthread.h>

#include "pipeline/streams/manager_impl.hpp"

namespace fp {

namespace fs = std::filesystem;

namespace {

// The stage whose frames an output writes: the input of the first sink.
std::string first_output_node(const PipelineDefinition& definition) {
  for (const auto& stage : definition.stages)
    if (const StageSpec* spec = find_stage(stage.type); spec && spec->role == StageRole::Sink && !stage.inputs.empty())
      return stage.inputs.front();
  return "";
}

}  // namespace

StreamRoots StreamManager::Impl::roots_with_state_file(const StreamManagerOptions& options) {
  StreamRoots roots = options.roots;
  if (!options.state_file.empty()) roots.own_files.push_back({options.state_file, "state file (--state)"});
  return roots;
}

bool StreamManager::Impl::supervise() {
  std::lock_guard lock(mutex);
  const auto now = Clock::now();
  bool save = false;
  reap();
  start_waiting();
  std::vector<std::shared_ptr<ManagedRun>> due;  // restarted after the loop: restart() replaces map entries
  for (auto& [name, run] : streams)
    if (!draining && awaiting_restart(*run) && now >= *run->restart_at) due.push_back(run);
  for (const auto& run : due) restart(run);
  measure_cpu(now);
  for (auto& [name, run] : streams) {
    RunStats published = published_stats(*run);
    refresh_state(*run, published);
    if (run->ended && run->error.empty() && !run->stop && !run->plan.endless && !run->finished_on_disk) {
      run->finished_on_disk = true;
      save = true;
    }
    if (run->started && !run->ended) sample(*run, std::move(published), now);
  }
  attribute_cpu();
  save = learn_costs(now) || save;
  supervisor_beat = Clock::now().time_since_epoch().count();
  return save;
}

void StreamManager::Impl::measure_cpu(Clock::time_point now) {
  if (!std::isfinite(options.budget.cpu_cores)) return;  // no budget of cores to keep
  cpu_rate.add(now, process_cpu_seconds());
  limiter.set_measured_cpu(cpu_rate.cores());
}

void StreamManager::Impl::supervise_loop() {
  // Named, so that a thread listing (top -H, /proc/PID/task) shows which one it is; the
  // watchdog test stops this thread alone by that name.
  pthread_setname_np(pthread_self(), "fp-supervisor");
  for (;;) {
    {
      std::unique_lock lock(mutex);
      if (closing) return;
      reap_due = false;
    }
    if (supervise() || save_pending) save_logged();
    std::unique_lock lock(mutex);
    wake.wait_for(lock, kSupervisorInterval, [this] { return closing || reap_due; });
  }
}

bool StreamManager::Impl::supervisor_alive() const {
  return Clock::now() - Clock::time_point(Clock::duration(supervisor_beat.load())) <= kSupervisorHeartbeatLimit;
}

bool StreamManager::Impl::check_remove(const std::string& name, StreamSource by) {
  std::lock_guard lock(mutex);
  const auto found = streams.find(name);
  if (found == streams.end()) return false;
  if (found->second->spec.source != by) throw StreamRejected(409, made_by_other(name, found->second->spec.source));
  return true;
}

StreamManager::PutOutcome StreamManager::Impl::make_put(const std::shared_ptr<ManagedRun>& run) {
  const std::string& name = run->spec.name;
  const auto found = streams.find(name);
  const std::shared_ptr<ManagedRun> old = found != streams.end() ? found->second : nullptr;
  bool place = old != nullptr && old->owns_place.exchange(false);
  if (place) limiter.transfer(old->load, run->load);  // its predecessor's place, with its own load
  if (!place && beyond_cap(run->spec, run->plan)) {  // run left room for it (resolve_stream_jobs)
    limiter.admit_anyway(run->load);
    place = true;
  }
  std::optional<CapacityResource> refused;
  if (!place && (run->plan.endless || !anyone_waiting())) {
    refused = limiter.admit(run->load);
    place = !refused;
  }
  run->predecessor = unfinished_run_named(name);
  // A place taken since the check (a waiting file started meanwhile): on disk already, so
  // listed as the restore lists it rather than refused after the fact.
  if (!place && run->plan.endless && run->spec.source == StreamSource::Api)
    run->rejected = waiting_for_text(refused.value_or(CapacityResource::Streams));
  if (old) {
    old->stop = true;
    retire(old);
  }
  streams[name] = run;
  if (place) {
    run->owns_place = true;
    start(run);
  }
  count_state(*run, true);
  refresh_state(*run, published_stats(*run));  // counted as what a GET of it shows now
  return old ? StreamManager::PutOutcome::Replaced : StreamManager::PutOutcome::Created;
}

void StreamManager::Impl::make_remove(const std::string& name) {
  const auto found = streams.find(name);
  if (found == streams.end()) return;  // cannot happen: changes are made one at a time
  const std::shared_ptr<ManagedRun> run = found->second;
  run->removed = true;
  run->stop = true;
  release_kept_place(*run);  // waiting for a restart: its place frees now
  streams.erase(found);
  retire(run);
}

StreamManager::StreamManager(StreamManagerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->restoring = true;
  // Before the supervisor starts: a state file that cannot be read throws from here, and
  // nothing would join that thread.
  if (impl_->options.restore_at_start) {
    restore();
    begin_serving();
  }
  impl_->supervisor_beat = Clock::now().time_since_epoch().count();
  if (impl_->options.policy.own_supervisor()) impl_->supervisor = std::thread([this] { impl_->supervise_loop(); });
}

void StreamManager::look() {
  if (impl_->supervise() || impl_->save_pending) impl_->save_logged();
}

void StreamManager::restore() {
  Impl& m = *impl_;
  if (!m.restoring) return;
  {
    std::lock_guard change(m.save_mutex);
    if (const fs::path& file = m.options.state_file; !file.empty()) {
      SavedState state = read_stream_state(file);
      m.restore_learned(state.learned_costs);
      const RestorableStreams restorable = restorable_streams(std::move(state.streams), file, m.options.has_stream_list);
      for (const auto& line : restorable.refused) spdlog::error("{}", line);
      for (const auto& line : restorable.dropped) spdlog::warn("{}", line);
      m.restore(restorable.streams);
      if (restorable.rewrite()) {  // the next start reads what runs
        try {
          m.write_state();
        } catch (const std::exception& e) {
          spdlog::error("{}", mask_uris_in_text(e.what()));
        }
      }
    }
    m.restoring = false;
  }
  m.wake.notify_all();
}

void StreamManager::begin_serving() { impl_->serving = true; }

StreamManager::~StreamManager() {
  drain(std::chrono::milliseconds::max());
  {
    std::lock_guard lock(impl_->mutex);
    impl_->closing = true;
  }
  impl_->wake.notify_all();
  if (impl_->supervisor.joinable()) impl_->supervisor.join();
  std::lock_guard lock(impl_->mutex);
  for (auto& [name, run] : impl_->streams)
    if (run->thread.joinable()) run->thread.join();
  for (auto& run : impl_->retiring)
    if (run->thread.joinable()) run->thread.join();
}

std::vector<StreamChangeResult> StreamManager::apply(const std::vector<StreamChange>& changes) {
  using Outcome = StreamChangeResult::Outcome;
  Impl& m = *impl_;
  std::vector<StreamChangeResult> results(changes.size());
  if (m.restoring) {
    for (auto& result : results)
      result = {Outcome::Refused, 503, "starting: the streams of the state file are being restored"};
    return results;
  }
  // One batch at a time, from its checks to its state on disk to the changes themselves, so
  // that what is written is what is then made (readers take only `mutex`, never held while writing).
  std::lock_guard change(m.save_mutex);
  Impl::Batch batch;
  std::vector<std::pair<std::size_t, std::shared_ptr<ManagedRun>>> accepted;  // a removal's run: nullptr
  std::set<std::string> names;
  for (std::size_t i = 0; i < changes.size(); ++i) {
    const StreamChange& c = changes[i];
    try {
      if (!names.insert(c.spec.name).second)
        throw StreamRejected(409, fmt::format("stream {}: changed twice in one batch", c.spec.name));
      if (c.remove) {
        if (m.check_remove(c.spec.name, c.spec.source))
          accepted.emplace_back(i, nullptr);
        else
          results[i].outcome = Outcome::Unknown;
      } else if (std::shared_ptr<ManagedRun> run = m.prepare_put(c.spec, batch, c.replan)) {
        accepted.emplace_back(i, std::move(run));
      } else {
        results[i].outcome = Outcome::Unchanged;
      }
    } catch (const CapacityRejected& e) {
      results[i] = {Outcome::Refused, e.status(), e.what(), e.resource()};
    } catch (const StreamRejected& e) {
      results[i] = {Outcome::Refused, e.status(), e.what()};
    }
  }
  if (accepted.empty()) return results;

  std::vector<SavedStream> saved;
  {
    std::lock_guard lock(m.mutex);
    std::set<std::string> changed;
    for (const auto& [i, run] : accepted) changed.insert(changes[i].spec.name);
    saved = m.saved_streams(changed);  // a replaced stream goes last, as a new one
    for (const auto& [i, run] : accepted)
      if (run) saved.push_back({run->spec, false});
  }
  try {
    m.persist(saved, accepted.size() == 1 ? fmt::format("stream {}: cannot save the state file",
                                                        changes[accepted.front().first].spec.name)
                                          : std::string("cannot save the state file"));
  } catch (const StreamRejected& e) {
    std::lock_guard lock(m.mutex);
    for (const auto& [i, run] : accepted) {
      if (run) m.files.remove(run->id);
      results[i] = {Outcome::Refused, e.status(), e.what()};
    }
    return results;
  }
  {
    std::lock_guard lock(m.mutex);
    // Streams that start whatever the cap (run's live inputs) are made first, as run starts
    // them: the places they take count before the files queue, in order, for the rest.
    auto making = accepted;
    std::stable_partition(making.begin(), making.end(),
                          [](const auto& made) { return made.second && Impl::beyond_cap(made.second->spec, made.second->plan); });
    for (const auto& [i, run] : making) {
      if (!run) {
        m.make_remove(changes[i].spec.name);
        results[i].outcome = Outcome::Removed;
      } else {
        results[i].outcome = m.make_put(run) == PutOutcome::Created ? Outcome::Created : Outcome::Replaced;
      }
    }
  }
  m.wake.notify_all();
  if (!m.options.policy.log_changes) return results;
  for (const auto& [i, run] : accepted) {
    const StreamSpec& spec = changes[i].spec;
    if (!run) {
      spdlog::info("stream {}: removed, finalizing its outputs", spec.name);
    } else {
      spdlog::info("stream {}: {} (pipeline {}, input {}, from the {})", spec.name,
                   results[i].outcome == Outcome::Created ? "added" : "replaced", spec.pipeline,
                   mask_credentials(spec.uri), spec.source == StreamSource::List ? "stream list" : "API");
    }
  }
  return results;
}

StreamManager::TemplatesReloaded StreamManager::reload_templates() {
  TemplatesReloaded result;
  if (!impl_->templates) return result;
  result.templates = impl_->templates->reload();
  if (result.templates.changed.empty()) return result;
  const std::set<std::string> changed(result.templates.changed.begin(), result.templates.changed.end());
  std::vector<StreamChange> changes;
  {
    std::lock_guard lock(impl_->mutex);
    for (const auto& [name, run] : impl_->streams)
      if (changed.count(run->spec.pipeline) && !run->ended && !run->stop)
        changes.push_back(StreamChange{.spec = run->spec, .remove = false, .replan = true});
  }
  const auto results = apply(changes);
  for (std::size_t i = 0; i < changes.size(); ++i) {
    if (results[i].outcome == StreamChangeResult::Outcome::Replaced)
      result.restarted.push_back(changes[i].spec.name);
    else if (results[i].outcome == StreamChangeResult::Outcome::Refused)
      result.refused.push_back(fmt::format("{}: {}", changes[i].spec.name, results[i].error));
  }
  return result;
}

StreamManager::PutOutcome StreamManager::put(const StreamSpec& spec) {
  const StreamChangeResult result = apply({StreamChange{.spec = spec, .remove = false}}).front();
  switch (result.outcome) {
    case StreamChangeResult::Outcome::Created: return PutOutcome::Created;
    case StreamChangeResult::Outcome::Replaced: return PutOutcome::Replaced;
    case StreamChangeResult::Outcome::Unchanged: return PutOutcome::Unchanged;
    default:
      if (!result.capacity_resource.empty()) throw CapacityRejected(result.capacity_resource, result.error);
      throw StreamRejected(result.status, result.error);
  }
}

bool StreamManager::remove(const std::string& name, StreamSource by) {
  StreamSpec spec;
  spec.name = name;
  spec.source = by;
  const StreamChangeResult result = apply({StreamChange{.spec = spec, .remove = true}}).front();
  if (result.outcome == StreamChangeResult::Outcome::Refused) throw StreamRejected(result.status, result.error);
  return result.outcome == StreamChangeResult::Outcome::Removed;
}

std::vector<StreamSpec> StreamManager::specs() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<StreamSpec> specs;
  for (const auto& [name, run] : impl_->streams) specs.push_back(run->spec);
  return specs;
}

std::vector<StreamStatus> StreamManager::list() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<StreamStatus> all;
  for (const auto& [name, run] : impl_->streams) all.push_back(impl_->status_of(*run));
  // Removed streams still finalizing their outputs, unless a new one of that name is listed.
  for (const auto& run : impl_->retiring)
    if (Impl::finalizing_removed(*run) && !impl_->streams.contains(run->spec.name))
      all.push_back(impl_->status_of(*run));
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return all;
}

// One stream's status, found by its name: not every stream's built to keep one (a GET of a
// stream among 10,000 held the manager's lock for all of them).
std::optional<StreamStatus> StreamManager::get(const std::string& name) const {
  std::lock_guard lock(impl_->mutex);
  if (const auto found = impl_->streams.find(name); found != impl_->streams.end())
    return impl_->status_of(*found->second);
  // Removed and still finalizing its outputs, as list() shows it.
  for (const auto& run : impl_->retiring)
    if (Impl::finalizing_removed(*run) && run->spec.name == name) return impl_->status_of(*run);
  return std::nullopt;
}

std::vector<std::string> StreamManager::pipelines() const { return impl_->planner->names(); }

ManagerInfo StreamManager::info() const {
  ManagerInfo info;
  info.capacity = impl_->limiter.cap();
  info.budget = impl_->limiter.budget();
  info.used = impl_->limiter.used();
  info.max_running = impl_->limiter.peak();
  for (const auto& [name, cost] : impl_->learned_in_force(impl_->learned.all()))  // what admits now
    info.learned_cores_per_mpps[name] = cost.cores_per_mpps;
  {
    std::lock_guard lock(impl_->mutex);
    for (std::size_t s = 0; s < kStreamStateCount; ++s)
      if (impl_->state_counts[s] > 0) info.streams_by_state[stream_state_name(static_cast<StreamState>(s))] = impl_->state_counts[s];
  }
  info.draining = draining();
  info.ready = ready();
  return info;
}

bool StreamManager::ready() const {
  // Started and not draining. Not whether each stream is well: one dead camera (or one
  // stuck executor, which alive() reports) must not take the whole service out of rotation.
  return !draining() && impl_->serving && !impl_->restoring && impl_->supervisor_alive();
}

std::optional<Frame> StreamManager::frame(const std::string& name, const std::string& node,
                                          std::chrono::milliseconds wait) {
  std::shared_ptr<ManagedRun> run;
  {
    std::lock_guard lock(impl_->mutex);
    const auto found = impl_->streams.find(name);
    if (found == impl_->streams.end()) throw StreamRejected(404, fmt::format("no stream '{}'", name));
    run = found->second;
    const StreamState state = impl_->refresh_state(*run, Impl::published_stats(*run));
    if (state != StreamState::Running && state != StreamState::Reconnecting && state != StreamState::Starting)
      throw StreamRejected(409, fmt::format("stream '{}' is not running ({})", name, stream_state_name(state)));
  }
  std::string id = node;
  if (id.empty()) id = first_output_node(run->plan.definition);
  // A sink gives the frame it writes: its input's.
  if (const StageDefinition* stage = run->plan.definition.find(id)) {
    const StageSpec* spec = find_stage(stage->type);
    if (spec && spec->role == StageRole::Sink && !stage->inputs.empty()) id = stage->inputs.front();
  }
  const std::vector<std::string> nodes = run->monitor.frame_nodes();
  if (nodes.empty()) return std::nullopt;  // its graph is still being set up
  if (std::find(nodes.begin(), nodes.end(), id) == nodes.end())
    throw StreamRejected(404, fmt::format("stream '{}' has no node '{}' (nodes: {})", name, node.empty() ? id : node,
                                          fmt::join(nodes, ", ")));
  return run->monitor.newest_frame(id, wait);
}

bool StreamManager::drain(std::chrono::milliseconds timeout) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mutex);
  m.stop_everything();
  const auto done = [&m] { return m.all_ended(); };
  bool ended = true;
  if (timeout == std::chrono::milliseconds::max()) {
    m.wake.wait(lock, done);
  } else {
    ended = m.wake.wait_for(lock, timeout, done);
  }
  m.reap();
  return ended;
}

std::vector<std::string> StreamManager::unfinished() const {
  std::lock_guard lock(impl_->mutex);
  std::vector<std::string> names;
  for (const auto& [name, run] : impl_->streams)
    if (run->started && !run->ended) names.push_back(name);
  return names;
}

void StreamManager::Impl::stop_everything() {
  draining = true;
  for (auto& [name, run] : streams) {
    run->stop = true;
    release_kept_place(*run);  // no restart after a drain
  }
  for (auto& run : retiring) run->stop = true;
  wake.notify_all();  // a replacement waiting for its predecessor (run_stream) sees its stop
}

bool StreamManager::settled() const {
  std::lock_guard lock(impl_->mutex);
  if (!impl_->all_ended()) return false;
  if (impl_->draining) return true;
  for (const auto& [name, run] : impl_->streams)
    if (Impl::is_waiting(*run) || Impl::awaiting_restart(*run)) return false;
  return true;
}

std::exception_ptr StreamManager::failure(const std::string& name) const {
  std::lock_guard lock(impl_->mutex);
  const auto found = impl_->streams.find(name);
  if (found == impl_->streams.end() || !found->second->ended) return nullptr;
  return found->second->failure;
}

bool StreamManager::draining() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->draining;
}

bool StreamManager::supervising() const { return impl_->supervisor_alive(); }

bool StreamManager::alive() const {
  const auto now = Clock::now();
  if (!impl_->supervisor_alive()) return false;
  std::lock_guard lock(impl_->mutex);
  for (const auto& [name, run] : impl_->streams) {
    if (!run->started || run->ended || run->stop || now - run->started_at < kStartGrace) continue;
    // No heartbeat yet: its graph is still being set up (an input opening), nothing to judge.
    const auto beat = run->monitor.last_heartbeat();
    if (beat != RunMonitor::Clock::time_point{} && now - beat > run->heartbeat_limit) return false;
  }
  return true;
}

}  // namespace fp
