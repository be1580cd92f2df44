// Who runs: the cap on streams at once, the streams waiting for a place, and a put's checks
// (owner, clashes, capacity) before its change is written.
#include "pipeline/streams/manager_impl.hpp"

namespace fp {

namespace fs = std::filesystem;

std::string made_by_other(const std::string& name, StreamSource owner) {
  return owner == StreamSource::List
             ? fmt::format("stream {} comes from the stream list (serve --stream-list): change it there", name)
             : fmt::format("stream {} was added through the API: the stream list cannot replace or remove it", name);
}

std::string waiting_for_text(CapacityResource resource) {
  if (resource == CapacityResource::Streams) return kWaitingForPlace;  // the cap: as it always said
  return fmt::format("{}: {}", kWaitingForPlace, capacity_resource_name(resource));
}

CapacityLoad StreamManager::Impl::load_of(const StreamSpec& spec, const StreamPlan& plan) const {
  const auto found = options.template_costs.find(spec.pipeline);
  CapacityLoad load = found == options.template_costs.end() ? CapacityLoad{} : found->second.load();
  if (options.admit_by_request && !plan.definition.stages.empty()) {
    // What the request names, not the template: a PUT may ask 4096x2160 of a 320x180 one.
    const CapacityLoad memory = memory_at(plan, plan.width, plan.height);
    load.host_bytes = std::max(load.host_bytes, memory.host_bytes);
    load.device_bytes = std::max(load.device_bytes, memory.device_bytes);
    if (found == options.template_costs.end() && plan.endless) {
      // A live stream's cores: what its template's streams were seen to use per pixel a
      // second, or a guess for one never seen, at the pixels a second it asks for (its URI's,
      // else its template's input's, else 1080p30). A file takes what is free as it runs
      // unpaced, and waits behind the measured CPU as before.
      const bool gpu = !options.devices.empty() && options.devices.front().kind == DeviceKind::Cuda;
      const double per_mpps =
          learned.cores_per_mpps(spec.pipeline, plan.template_digest).value_or(gpu ? kUnseenGpuCoresPerMpps : kUnseenCpuCoresPerMpps);
      const double width = plan.width > 0 ? plan.width : 1920;
      const double height = plan.height > 0 ? plan.height : 1080;
      const double fps = plan.fps > 0 ? plan.fps : 30;
      load.cpu_cores = per_mpps * width * height * fps / 1e6;
    }
  }
  return load;
}

bool StreamManager::Impl::learn_costs(Clock::time_point now) {
  // Only a process in its steady state teaches: not while it drains (its teardown's CPU,
  // split over the streams, was learned as theirs: 0.4 cores per Mpx/s for a 640x360
  // smoothing under ThreadSanitizer, twice its steady cost), and not while a stream is in its
  // first window (its start-up, in the process's residual, lands on the others' measure).
  if (!options.admit_by_request || draining) return false;
  for (const auto& [name, run] : streams)
    if (run->started && !run->ended && (run->stop || now - run->started_at < kCpuWindow + kSupervisorInterval))
      return false;
  for (const auto& [name, run] : streams) {
    if (!run->started || run->ended) continue;
    const double mpps = run->fps * run->opened_width.load(std::memory_order_relaxed) *
                        run->opened_height.load(std::memory_order_relaxed) / 1e6;
    learned.learn(run->spec.pipeline, run->plan.template_digest, run->cpu_cores, mpps);
  }
  return learned.worth_saving();
}

CapacityLoad StreamManager::Impl::memory_at(const StreamPlan& plan, int width, int height) const {
  const bool gpu = !options.devices.empty() && options.devices.front().kind == DeviceKind::Cuda;
  StreamFootprint footprint = stream_footprint(plan.definition, gpu, options.run);
  if (width > 0 && height > 0) {  // else the estimate's own 1920x1080
    footprint.width = width;
    footprint.height = height;
  }
  return stream_memory_load(footprint);
}

void StreamManager::Impl::recheck_memory(ManagedRun& run, int width, int height) {
  const CapacityLoad opened = memory_at(run.plan, width, height);
  std::lock_guard lock(mutex);
  if (!run.owns_place) return;  // beyond the cap (run's live inputs): nothing of the budget held
  CapacityLoad grown = run.load;
  grown.host_bytes = std::max(grown.host_bytes, opened.host_bytes);
  grown.device_bytes = std::max(grown.device_bytes, opened.device_bytes);
  if (grown.host_bytes == run.load.host_bytes && grown.device_bytes == run.load.device_bytes) return;
  if (const auto short_of = limiter.grow(run.load, grown)) {
    run.refused_capacity = true;
    const CapacityResource resource = *short_of;
    const bool device = resource == CapacityResource::GpuMemory;
    const double needed = device ? grown.device_bytes : grown.host_bytes;
    const CapacityLoad used = limiter.used();
    throw CapacityRejected(
        capacity_resource_name(resource),
        fmt::format("{}: its input opened at {}x{}, which needs ~{:.0f} MiB, more than is left ({:.0f} MiB of "
                    "{:.0f} MiB in use); not started again",
                    waiting_for_text(resource), width, height, needed / (1 << 20),
                    (device ? used.device_bytes : used.host_bytes) / (1 << 20),
                    limiter.budget().of(resource) / (1 << 20)));
  }
  run.load = grown;
}

std::size_t StreamManager::Impl::capacity_of(const StreamManagerOptions& options, const StreamPlanner& planner) {
  if (options.max_streams > 0) return options.max_streams;
  const std::vector<Device> devices = options.devices.empty() ? std::vector<Device>{Device{}} : options.devices;
  int cap = 0;
  for (const auto& definition : planner.loaded()) {
    const int fits = default_stream_jobs(definition, devices, options.run);
    cap = cap == 0 ? fits : std::min(cap, fits);
  }
  return static_cast<std::size_t>(std::max(cap, 1));
}

void StreamManager::Impl::keep_earlier_outputs(StreamPlan& plan) const {
  if (options.policy.earlier_outputs == StreamPolicy::EarlierOutputs::KeepBeside)
    move_outputs_beside_existing(plan, [this](const std::string& path) { return files.written(path); });
}

bool StreamManager::Impl::is_waiting(const ManagedRun& run) {
  return !run.started && run.rejected.empty() && !run.finished_on_disk;
}

bool StreamManager::Impl::anyone_waiting() const {
  for (const auto& [name, run] : streams)
    if (is_waiting(*run)) return true;
  return false;
}

void StreamManager::Impl::start_waiting() {
  if (draining) return;
  std::vector<std::shared_ptr<ManagedRun>> waiting;
  for (const auto& [name, run] : streams)
    if (is_waiting(*run)) waiting.push_back(run);
  std::sort(waiting.begin(), waiting.end(), [](const auto& a, const auto& b) { return a->order < b->order; });
  for (const auto& run : waiting) {
    run->load = load_of(run->spec, run->plan);  // what was learned while it waited counts
    if (const auto refused = limiter.admit(run->load)) {
      run->waiting_for = *refused;  // and the ones behind it wait their turn
      break;
    }
    run->owns_place = true;
    start(run);
  }
}

std::size_t StreamManager::Impl::waiting_count() const {
  std::size_t n = 0;
  for (const auto& [name, run] : streams) n += is_waiting(*run);
  return n;
}

std::shared_ptr<ManagedRun> StreamManager::Impl::prepare_put(const StreamSpec& spec, Batch& batch, bool replan) {
  {
    std::lock_guard lock(mutex);
    if (draining) throw StreamRejected(503, "draining");
    const auto found = streams.find(spec.name);
    if (found != streams.end()) {
      ManagedRun& old = *found->second;
      if (old.spec.source != spec.source) throw StreamRejected(409, made_by_other(spec.name, old.spec.source));
      // A retry (a client's, a proxy's, DeepStream's add again) of what already is: nothing
      // to do. A failed stream is the exception: asking for it again is asking it to start.
      if (!replan && old.spec == spec && refresh_state(old, published_stats(old)) != StreamState::Failed) return nullptr;
    }
  }
  StreamPlan plan = planner->plan(spec);  // the file system, without the mutex
  std::lock_guard lock(mutex);
  if (draining) throw StreamRejected(503, "draining");
  if (const std::string clash = files.clashes(spec.name, plan.files); !clash.empty()) throw StreamRejected(409, clash);
  // The stream's owner was checked above; changes are made one at a time (save_mutex), and a
  // restart since then put a run of the same spec in its place.
  const auto found = streams.find(spec.name);
  const bool own_place = found != streams.end() && found->second->owns_place.load();
  // A place now, within the budget: the batch's accepted puts count as taken.
  const CapacityLoad load = load_of(spec, plan);
  CapacityLoad promised = batch.load;
  promised.streams = static_cast<double>(batch.places);
  // A replacement takes its predecessor's place, with what it will cost: a costly spec put
  // in place of a cheap one (itself admitted when the costly one was refused) must fit the
  // budget as a new stream does, or it is refused and the one running runs on.
  if (own_place) {
    if (const auto short_of = limiter.short_replacing(found->second->load, load, promised))
      throw CapacityRejected(capacity_resource_name(*short_of), waiting_for_text(*short_of));
  }
  const std::optional<CapacityResource> short_of = limiter.short_of(load, promised);
  const bool free_place = !short_of;
  // A live API input needs a place now: its own predecessor's, or a free one.
  if (!own_place && !free_place && plan.endless && spec.source == StreamSource::Api)
    throw CapacityRejected(capacity_resource_name(*short_of), waiting_for_text(*short_of));  // the HTTP layer adds the budget (info())
  // A live command-line stream takes a place beyond the cap (make_put); a file waits behind
  // the others; a live list stream waits for a place to free.
  const bool waits = !own_place && !beyond_cap(spec, plan) &&
                     (!free_place || (!plan.endless && (batch.waiting > 0 || anyone_waiting())));
  // A waiting stream replaced leaves the queue as its successor joins it.
  const bool replaces_waiting = found != streams.end() && is_waiting(*found->second);
  const std::size_t queued = waiting_count() - (replaces_waiting ? 1 : 0) + batch.waiting;
  if (waits && options.max_waiting > 0 && queued >= options.max_waiting)
    throw StreamRejected(503, fmt::format("{}: {} streams already wait for a place (--max-waiting {})",
                                          kWaitingForPlace, queued, options.max_waiting));
  // What the run it replaces wrote (or is still writing) is kept: new files beside it (or a
  // refusal, before the batch counts this stream).
  keep_earlier_outputs(plan);
  if (waits) {
    ++batch.waiting;
  } else if (!own_place) {
    ++batch.places;
    batch.load += load;
  }
  auto run = make_run(spec, std::move(plan));
  if (short_of) run->waiting_for = *short_of;
  files.add(run->id, spec.name, run->plan.files);
  return run;
}

}  // namespace fp
