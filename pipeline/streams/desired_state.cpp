// The desired state on disk: written before a change is made (persist), after a stream
// finished (save), and read back at start (restore).
#include "pipeline/streams/manager_impl.hpp"

namespace fp {

namespace fs = std::filesystem;

std::vector<SavedStream> StreamManager::Impl::saved_streams(const std::set<std::string>& except) const {
  std::vector<std::shared_ptr<ManagedRun>> runs;
  for (const auto& [name, run] : streams)
    if (!except.contains(name)) runs.push_back(run);
  std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a->order < b->order; });
  std::vector<SavedStream> saved;
  for (const auto& run : runs) saved.push_back({run->spec, run->finished_on_disk});
  return saved;
}

void StreamManager::Impl::persist(const std::vector<SavedStream>& saved, const std::string& change) {
  if (options.state_file.empty()) return;
  try {
    write_state_file(saved);
  } catch (const std::exception& e) {
    throw StreamRejected(500, fmt::format("{}: nothing changed ({})", change, mask_uris_in_text(e.what())));
  }
}

void StreamManager::Impl::save() {
  if (options.state_file.empty()) return;
  std::unique_lock save_lock(save_mutex, std::try_to_lock);
  save_pending = !save_lock.owns_lock();
  if (!save_pending) write_state();
}

void StreamManager::Impl::write_state() {
  std::vector<SavedStream> saved;
  {
    std::lock_guard lock(mutex);
    saved = saved_streams();
  }
  write_state_file(std::move(saved));
}

void StreamManager::Impl::write_state_file(std::vector<SavedStream> saved) {
  SavedState state{.streams = std::move(saved), .learned_costs = learned.all()};
  write_stream_state(options.state_file, state);
  learned.saved(state.learned_costs);
}

std::map<std::string, LearnedCost> StreamManager::Impl::learned_in_force(
    const std::map<std::string, LearnedCost>& costs) const {
  std::map<std::string, LearnedCost> current;
  if (!templates) return current;  // run learns nothing
  for (const auto& [name, cost] : costs)
    if (cost.template_digest == templates->digest(name)) current.emplace(name, cost);
  return current;
}

void StreamManager::Impl::restore_learned(const std::map<std::string, LearnedCost>& kept) {
  learned.restore(learned_in_force(kept));  // a template edited or gone since is forgotten
}

void StreamManager::Impl::save_logged() {
  try {
    save();
  } catch (const std::exception& e) {
    spdlog::error("{}", mask_uris_in_text(e.what()));
  }
}

void StreamManager::Impl::restore(const std::vector<SavedStream>& saved) {
  for (const auto& entry : saved) {
    StreamPlan plan;
    std::string rejected;
    try {
      plan = planner->plan(entry.spec);
    } catch (const StreamRejected& e) {
      rejected = mask_uris_in_text(e.what());
    }
    std::lock_guard lock(mutex);
    if (streams.contains(entry.spec.name)) continue;
    if (rejected.empty()) {
      rejected = mask_uris_in_text(files.clashes(entry.spec.name, plan.files));
      // The outputs of the run before the restart stay as they were (finalized or not).
      if (rejected.empty()) {
        try {
          keep_earlier_outputs(plan);
        } catch (const StreamRejected& e) {
          rejected = mask_uris_in_text(e.what());
        }
      }
    }
    const std::shared_ptr<ManagedRun> run = make_run(entry.spec, rejected.empty() ? std::move(plan) : StreamPlan{});
    run->rejected = rejected;
    run->finished_on_disk = entry.finished;
    streams[entry.spec.name] = run;
    count_state(*run, true);
    files.add(run->id, entry.spec.name, run->plan.files);
    // Drained meanwhile: kept in the desired state (a save must not lose it), never started.
    if (!run->rejected.empty() || run->finished_on_disk || draining) continue;
    const std::optional<CapacityResource> short_of = limiter.admit(run->load);
    if (!short_of) {
      run->owns_place = true;
      start(run);
    } else if (run->plan.endless && run->spec.source == StreamSource::Api) {
      // Refused as put() refuses it (a list stream waits instead), saying so to the
      // operator, who has no 503 to read here: the cap or the budget, and what starts it.
      const CapacityResource resource = short_of.value_or(CapacityResource::Streams);
      run->rejected = resource == CapacityResource::Streams
                          ? fmt::format("{}: restored beyond the cap ({} running at once, --max-streams); not "
                                        "started: PUT it again once a place is free",
                                        kWaitingForPlace, limiter.cap())
                          : fmt::format("{}: restored beyond the budget; not started: PUT it again once there is room",
                                        waiting_for_text(resource));
    } else if (short_of) {
      run->waiting_for = *short_of;
    }
  }
  // Counted as what a GET of each shows now (failed, finished, waiting, starting).
  std::lock_guard lock(mutex);
  for (auto& [name, run] : streams) refresh_state(*run, published_stats(*run));
}

}  // namespace fp
