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
#include "pipeline/streams/manager.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "media/output_target.hpp"
#include "media/stream_uri.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "pipeline/streams/file_index.hpp"
#include "pipeline/streams/fresh_outputs.hpp"
#include "pipeline/streams/jobs.hpp"
#include "pipeline/streams/limiter.hpp"
#include "pipeline/streams/restorable_streams.hpp"
#include "pipeline/streams/state_file.hpp"
#include "pipeline/streams/template.hpp"
#include "stages/registry.hpp"

namespace fp {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr auto kSupervisorInterval = 250ms;
constexpr auto kFpsWindow = 3s;          // fps is measured over this much of the recent past
// Recent latency: the histogram as it was about kLatencyWindow ago is kept (one copy every
// kLatencySampleEvery, ~19 KB each) and subtracted from the current one.
constexpr auto kLatencyWindow = 10s;
constexpr auto kLatencySampleEvery = 2s;
constexpr auto kHeartbeatLimit = 5s;     // a run whose graph thread was silent longer is not alive
constexpr auto kStartGrace = 10s;        // ... unless it started less than this ago (inputs opening)
constexpr auto kPredecessorPoll = 20ms;  // a replacement waits for the run it replaces in such steps

}  // namespace

namespace {

// The last_error of a stream waiting for a place: the word the API's 503 uses.
constexpr const char* kWaitingForPlace = "capacity";

// Why a put or remove of `name` by the other source is refused.
std::string made_by_other(const std::string& name, StreamSource owner) {
  return owner == StreamSource::List
             ? fmt::format("stream {} comes from the stream list (serve --stream-list): change it there", name)
             : fmt::format("stream {} was added through the API: the stream list cannot replace or remove it", name);
}

// One run of one spec: from put() until its thread has ended and been joined.
struct Run {
  StreamSpec spec;
  StreamPlan plan;
  Device device;
  std::uint64_t order = 0;  // put order: streams waiting for a place start in it
  std::uint64_t id = 0;     // its entry in Impl::files

  RunMonitor monitor;
  std::atomic<bool> stop{false};
  std::atomic<bool> ended{false};
  std::atomic<bool> owns_place{false};  // holds one of the limiter's places (given back once)
  std::shared_ptr<Run> predecessor;     // its thread only: the run whose outputs it takes over
  std::thread thread;
  // Written by the run's thread before `ended`, read after it.
  RunStats result;
  std::string error;

  // Under Impl::mutex.
  bool started = false;
  bool removed = false;            // remove(): forgotten once ended
  bool finished_on_disk = false;   // the state file marks it finished (restored as such, or saved so)
  std::string rejected;            // restored from the state file but no longer valid: failed with this
  Clock::time_point running_at{};  // when it was first seen running (for the back-off's reset)
  Clock::time_point ended_at{};
  // Restarts of a live stream that failed: the back-off and count go from run to successor.
  RestartBackoff backoff;
  std::int64_t restarts = 0;
  std::optional<Clock::time_point> restart_at;  // set when it ended failed and keeps its place
  std::chrono::milliseconds restart_wait{0};
  std::string previous_error;      // a successor's: the failure it was started again after
  StreamState state = StreamState::Waiting;
  std::chrono::system_clock::time_point since = std::chrono::system_clock::now();
  Clock::time_point started_at{};
  Clock::duration heartbeat_limit = kHeartbeatLimit;
  std::deque<std::pair<Clock::time_point, std::int64_t>> samples;  // (when, frames), for fps
  std::deque<std::pair<Clock::time_point, LatencyHistogram>> latency_samples;  // for recent latency
  double fps = 0;
};

// How long the run's graph thread may be silent: a second of heartbeats, or the time an
// input may take to open (twice its timeout_ms, the one stretch without a heartbeat).
Clock::duration heartbeat_limit(const PipelineDefinition& definition) {
  Clock::duration limit = kHeartbeatLimit;
  for (const auto& stage : definition.stages)
    if (is_source(stage) && stage.params.has("timeout_ms"))
      limit = std::max<Clock::duration>(limit, std::chrono::milliseconds(2 * stage.params.integer("timeout_ms")) + 2s);
  return limit;
}

// The stage whose frames an output writes: the input of the first sink.
std::string first_output_node(const PipelineDefinition& definition) {
  for (const auto& stage : definition.stages)
    if (const StageSpec* spec = find_stage(stage.type); spec && spec->role == StageRole::Sink && !stage.inputs.empty())
      return stage.inputs.front();
  return "";
}

}  // namespace

struct StreamManager::Impl {
  StreamManagerOptions options;
  StreamTemplates templates;
  StreamLimiter limiter;

  mutable std::mutex mutex;
  std::condition_variable wake;  // a run ended, or the manager is closing
  std::map<std::string, std::shared_ptr<Run>> streams;  // the desired state
  std::vector<std::shared_ptr<Run>> retiring;           // replaced, removed or drained: until joined
  // The files of every run that may read or write now: in `streams`, or retiring and not ended.
  StreamFileIndex files;
  std::uint64_t next_order = 0;
  std::uint64_t next_run_id = 1;
  std::size_t next_device = 0;
  bool draining = false;
  bool closing = false;
  std::atomic<Clock::rep> supervisor_beat{0};
  std::thread supervisor;
  std::mutex save_mutex;
  // From construction until restore() has brought back the state file's streams: changes
  // are refused (a save would write the file without the streams not yet restored).
  std::atomic<bool> restoring{false};
  std::atomic<bool> serving{false};  // begin_serving(): ready from now on
  std::atomic<bool> save_pending{false};  // the supervisor's save found save_mutex busy: again next time

  explicit Impl(StreamManagerOptions opts)
      : options(std::move(opts)),
        templates(options.pipelines, roots_with_state_file(options),
                  AutoBackend(options.devices.empty() ? DeviceKind::Cpu : options.devices.front().kind),
                  options.input_limits),
        limiter(capacity_of(options, templates)) {
    if (options.devices.empty()) options.devices.push_back(Device{});
    // spdlog makes its registry on first use; made here, before any stream thread starts,
    // so that two streams logging their first line at once do not both make it (libspdlog's
    // own guard is invisible to ThreadSanitizer, which then reports the registry's level).
    spdlog::default_logger_raw();
  }

  // The roots with the state file among the service's own files: no stream writes it, or beside it.
  static StreamRoots roots_with_state_file(const StreamManagerOptions& options) {
    StreamRoots roots = options.roots;
    if (!options.state_file.empty()) roots.own_files.push_back({options.state_file, "state file (--state)"});
    return roots;
  }

  // max_streams, or what this machine's memory holds for the largest of the templates.
  static std::size_t capacity_of(const StreamManagerOptions& options, const StreamTemplates& templates) {
    if (options.max_streams > 0) return options.max_streams;
    const std::vector<Device> devices = options.devices.empty() ? std::vector<Device>{Device{}} : options.devices;
    int cap = 0;
    for (const auto& definition : templates.loaded()) {
      const int fits = default_stream_jobs(definition, devices, options.run);
      cap = cap == 0 ? fits : std::min(cap, fits);
    }
    return static_cast<std::size_t>(std::max(cap, 1));
  }

  std::shared_ptr<Run> make_run(const StreamSpec& spec, StreamPlan plan) {
    auto run = std::make_shared<Run>();
    run->spec = spec;
    run->plan = std::move(plan);
    run->heartbeat_limit = heartbeat_limit(run->plan.definition);
    run->order = next_order++;
    run->id = next_run_id++;
    run->device = options.devices[next_device++ % options.devices.size()];
    run->backoff = RestartBackoff(options.restart);
    return run;
  }

  // mutex held: the run ended failed by itself (not stopped by remove, replace or drain) and
  // is live: it will be started again, so it keeps its place meanwhile. A file stays failed.
  bool restartable(const Run& run) const {
    return run.plan.endless && !run.error.empty() && !run.stop && !draining;
  }

  // mutex held: an ended run whose successor starts at restart_at (none once it is stopped).
  static bool awaiting_restart(const Run& run) { return run.ended && run.restart_at && !run.stop; }

  // mutex held: gives back the place of a run taken out of the desired state after it ended
  // holding one for its restart (a run still going gives its own back when it ends).
  void release_kept_place(Run& run) {
    if (run.ended && run.owns_place.exchange(false)) limiter.release();
  }

  // mutex held: the failed live run's wait before its successor starts.
  void plan_restart(Run& run) {
    const auto ran = run.running_at == Clock::time_point{} ? Clock::duration::zero() : run.ended_at - run.running_at;
    run.restart_wait = run.backoff.after_failure(ran);
    run.restart_at = run.ended_at + run.restart_wait;
    spdlog::warn("stream {}: failed: {}; starting it again in {} s (restart {})", run.spec.name,
                 mask_uris_in_text(run.error), std::chrono::duration<double>(run.restart_wait).count(),
                 run.restarts + 1);
  }

  // mutex held: the successor of a failed live run whose wait is over, in its place (the
  // same spec, order, device, limiter place, back-off), started now. Its outputs are planned
  // anew and never truncate what the failed run wrote (fresh_outputs.hpp).
  void restart(const std::shared_ptr<Run>& old) {
    const std::string& name = old->spec.name;
    std::shared_ptr<Run> next;
    try {
      StreamPlan plan = templates.plan(old->spec);
      move_outputs_beside_existing(plan, [this](const std::string& path) { return files.written(path); });
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
    streams[name] = next;
    files.add(next->id, name, next->plan.files);
    retire(old);
    if (!next->rejected.empty()) {
      if (place) limiter.release();
      return;
    }
    spdlog::info("stream {}: starting it again (restart {})", name, next->restarts);
    next->owns_place = place;
    start(next);
  }

  // mutex held: a stream that waits for a place (start_waiting() starts it when one frees).
  static bool is_waiting(const Run& run) { return !run.started && run.rejected.empty() && !run.finished_on_disk; }

  bool anyone_waiting() const {
    for (const auto& [name, run] : streams)
      if (is_waiting(*run)) return true;
    return false;
  }

  // The run's thread: waits for the run it replaces to finalize its outputs, then runs.
  static void run_stream(Impl& impl, Run& run) {
    if (run.predecessor) {
      // Bounded by the predecessor's finalizing (its executor's own deadlines).
      while (!run.predecessor->ended.load() && !run.stop.load()) std::this_thread::sleep_for(kPredecessorPoll);
      run.predecessor.reset();
    }
    if (!run.stop.load()) {
      for (const auto& use : run.plan.files) {
        std::error_code ec;  // a folder that cannot be made: the run says why it cannot write
        if (use.written && !is_network_output(use.path)) fs::create_directories(fs::path(use.path).parent_path(), ec);
      }
      RunOptions options = impl.options.run;
      options.input_limits = impl.options.input_limits;  // a file or camera larger than the URI could say
      options.stop = &run.stop;
      options.monitor = &run.monitor;
      options.progress = false;
      options.realtime = options.realtime || runs_in_realtime(run.plan.definition);
      if (run.plan.definition.drop != DropPolicy::Auto) options.drop = run.plan.definition.drop;
      try {
        run.result = run_pipeline(run.plan.definition, run.device, options, &run.result);
      } catch (const std::exception& e) {
        run.error = mask_uris_in_text(e.what());
        if (run.error.empty()) run.error = "failed";
      }
    }
    bool keeps_place = false;
    {
      std::lock_guard lock(impl.mutex);
      run.ended_at = Clock::now();
      keeps_place = impl.restartable(run);
      if (keeps_place) impl.plan_restart(run);
      run.ended = true;
      // Retired (removed, replaced, restarted): its files are free now for any stream.
      if (const auto found = impl.streams.find(run.spec.name); found == impl.streams.end() || found->second.get() != &run)
        impl.files.remove(run.id);
    }
    // Given back after `ended` is set: remove/put/drain give back the place of an ended run,
    // this thread that of one they stopped; the exchange lets only one of them do it.
    if (!keeps_place && run.owns_place.exchange(false)) impl.limiter.release();
    impl.wake.notify_all();
  }

  // mutex held. The run has its place (or needs none); its thread starts now.
  void start(const std::shared_ptr<Run>& run) {
    run->started = true;
    run->started_at = Clock::now();
    try {
      run->thread = std::thread([this, one = run.get()] { run_stream(*this, *one); });
    } catch (const std::system_error& e) {
      run->error = std::string("cannot start its thread: ") + e.what();
      if (run->owns_place.exchange(false)) limiter.release();
      run->predecessor.reset();
      run->ended = true;
    }
  }

  // What the run's executor has published (its final stats once ended): one copy, which the
  // state, the status and the supervisor's samples all read.
  static RunStats published_stats(Run& run) { return run.ended ? run.result : run.monitor.snapshot(); }

  // mutex held: the state it shows now (`since` follows its changes); `published`: published_stats(run).
  StreamState refresh_state(Run& run, const RunStats& published) {
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
      log_state_change(run, state);
      run.state = state;
      run.since = std::chrono::system_clock::now();
    }
    return state;
  }

  // One line per change an operator cares about (the log is what a service leaves behind).
  static void log_state_change(const Run& run, StreamState state) {
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

  // mutex held.
  StreamStatus status_of(Run& run) {
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
                        : status.state == StreamState::Waiting     ? std::string(kWaitingForPlace)
                        : status.state == StreamState::Reconnecting ? run.previous_error
                                                                    : std::string();
    status.outputs = run.plan.outputs;
    return status;
  }

  // mutex held: joins the threads of runs that ended; forgets retired ones.
  void reap() {
    for (auto& [name, run] : streams)
      if (run->ended && run->thread.joinable()) run->thread.join();
    for (auto& run : retiring)
      if (run->ended && run->thread.joinable()) run->thread.join();
    std::erase_if(retiring, [this](const std::shared_ptr<Run>& run) {
      const bool gone = run->ended || !run->started;
      if (gone) files.remove(run->id);
      return gone;
    });
  }

  // mutex held: waiting file inputs take the places that freed, in put order.
  void start_waiting() {
    if (draining) return;
    std::vector<std::shared_ptr<Run>> waiting;
    for (const auto& [name, run] : streams)
      if (is_waiting(*run)) waiting.push_back(run);
    std::sort(waiting.begin(), waiting.end(), [](const auto& a, const auto& b) { return a->order < b->order; });
    for (const auto& run : waiting) {
      if (!limiter.try_admit()) break;
      run->owns_place = true;
      start(run);
    }
  }

  // One look at everything; true when the state file must be saved (a stream finished).
  bool supervise() {
    std::lock_guard lock(mutex);
    const auto now = Clock::now();
    bool save = false;
    reap();
    start_waiting();
    std::vector<std::shared_ptr<Run>> due;  // restarted after the loop: restart() replaces map entries
    for (auto& [name, run] : streams)
      if (!draining && awaiting_restart(*run) && now >= *run->restart_at) due.push_back(run);
    for (const auto& run : due) restart(run);
    for (auto& [name, run] : streams) {
      RunStats published = published_stats(*run);
      refresh_state(*run, published);
      if (run->ended && run->error.empty() && !run->stop && !run->plan.endless && !run->finished_on_disk) {
        run->finished_on_disk = true;
        save = true;
      }
      if (!run->started || run->ended) continue;
      run->samples.emplace_back(now, published.frames);
      if (run->latency_samples.empty() || now - run->latency_samples.back().first >= kLatencySampleEvery)
        run->latency_samples.emplace_back(now, std::move(published.latency_ms));
      while (run->latency_samples.size() > 2 && now - run->latency_samples[1].first >= kLatencyWindow)
        run->latency_samples.pop_front();
      while (run->samples.size() > 2 && now - run->samples[1].first >= kFpsWindow) run->samples.pop_front();
      const auto& [then, frames_then] = run->samples.front();
      const double seconds = std::chrono::duration<double>(now - then).count();
      run->fps = seconds > 0.2 ? static_cast<double>(run->samples.back().second - frames_then) / seconds : 0.0;
    }
    supervisor_beat = Clock::now().time_since_epoch().count();
    return save;
  }

  void supervise_loop() {
    for (;;) {
      {
        std::unique_lock lock(mutex);
        if (closing) return;
      }
      if (supervise() || save_pending) save_logged();
      std::unique_lock lock(mutex);
      wake.wait_for(lock, kSupervisorInterval, [this] { return closing; });
    }
  }

  // mutex held: the desired state as the state file keeps it, in put order, without `except`.
  std::vector<SavedStream> saved_streams(const std::set<std::string>& except = {}) const {
    std::vector<std::shared_ptr<Run>> runs;
    for (const auto& [name, run] : streams)
      if (!except.contains(name)) runs.push_back(run);
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a->order < b->order; });
    std::vector<SavedStream> saved;
    for (const auto& run : runs) saved.push_back({run->spec, run->finished_on_disk});
    return saved;
  }

  // save_mutex held: `saved` on disk before the change it describes is made, or
  // StreamRejected 500 saying nothing changed.
  void persist(const std::vector<SavedStream>& saved, const std::string& change) {
    if (options.state_file.empty()) return;
    try {
      write_stream_state(options.state_file, saved);
    } catch (const std::exception& e) {
      throw StreamRejected(500, fmt::format("{}: nothing changed ({})", change, mask_uris_in_text(e.what())));
    }
  }

  // The supervisor's save (a stream finished): never waits for a change or a restore in
  // progress, which would stop its heartbeat (/livez); tried again at its next look.
  void save() {
    if (options.state_file.empty()) return;
    std::unique_lock save_lock(save_mutex, std::try_to_lock);
    save_pending = !save_lock.owns_lock();
    if (!save_pending) write_state();
  }

  // save_mutex held: the desired state as it is now, on disk.
  void write_state() {
    std::vector<SavedStream> saved;
    {
      std::lock_guard lock(mutex);
      saved = saved_streams();
    }
    write_stream_state(options.state_file, saved);
  }

  // mutex held: `run` leaves the desired state; joined by reap(). Its files stay in use
  // until its thread has ended (a replacement opens them only then).
  void retire(const std::shared_ptr<Run>& run) {
    if (run->ended) files.remove(run->id);
    retiring.push_back(run);
  }

  void save_logged() {
    try {
      save();
    } catch (const std::exception& e) {
      spdlog::error("{}", mask_uris_in_text(e.what()));
    }
  }

  bool supervisor_alive() const {
    return Clock::now() - Clock::time_point(Clock::duration(supervisor_beat.load())) <= kHeartbeatLimit;
  }

  // mutex held: every run whose thread has not ended.
  bool all_ended() const {
    for (const auto& [name, run] : streams)
      if (run->started && !run->ended) return false;
    for (const auto& run : retiring)
      if (run->started && !run->ended) return false;
    return true;
  }

  // mutex held: the run a new one of this name must wait for (still finalizing its outputs).
  std::shared_ptr<Run> unfinished_run_named(const std::string& name) const {
    if (const auto found = streams.find(name); found != streams.end() && found->second->started && !found->second->ended)
      return found->second;
    for (auto it = retiring.rbegin(); it != retiring.rend(); ++it)
      if ((*it)->spec.name == name && (*it)->started && !(*it)->ended) return *it;
    return nullptr;
  }

  // Streams of the state file, as put() would make them, except that one no longer valid
  // (its template changed) is listed as failed with the reason, and a live one beyond the
  // cap as failed with "capacity": a service must come up whatever one stream's fate.
  // The names are unique (restorable_streams): a second run of one name would replace a
  // started one in the map, destroying its joinable thread (std::terminate). Each stream is
  // planned without the mutex and added under it, so probes and listings answer meanwhile.
  void restore(const std::vector<SavedStream>& saved) {
    for (const auto& entry : saved) {
      StreamPlan plan;
      std::string rejected;
      try {
        plan = templates.plan(entry.spec);
      } catch (const StreamRejected& e) {
        rejected = mask_uris_in_text(e.what());
      }
      std::lock_guard lock(mutex);
      if (streams.contains(entry.spec.name)) continue;
      if (rejected.empty()) {
        rejected = mask_uris_in_text(files.clashes(entry.spec.name, plan.files));
        // The outputs of the run before the restart stay as they were (finalized or not).
        if (rejected.empty())
          move_outputs_beside_existing(plan, [this](const std::string& path) { return files.written(path); });
      }
      const std::shared_ptr<Run> run = make_run(entry.spec, rejected.empty() ? std::move(plan) : StreamPlan{});
      run->rejected = rejected;
      run->finished_on_disk = entry.finished;
      streams[entry.spec.name] = run;
      files.add(run->id, entry.spec.name, run->plan.files);
      // Drained meanwhile: kept in the desired state (a save must not lose it), never started.
      if (!run->rejected.empty() || run->finished_on_disk || draining) continue;
      if (limiter.try_admit()) {
        run->owns_place = true;
        start(run);
      } else if (run->plan.endless && run->spec.source == StreamSource::Api) {
        // Refused as put() refuses it (a list stream waits instead), saying so to the
        // operator, who has no 503 to read here: the cap, and what starts it.
        run->rejected = fmt::format("{}: restored beyond the cap ({} running at once, --max-streams); not started: "
                                    "PUT it again once a place is free",
                                    kWaitingForPlace, limiter.cap());
      }
    }
  }

  // Several puts and removals waiting on one another's state write (apply()).
  struct Batch {
    std::size_t places = 0;   // places its accepted puts take (beyond their predecessors')
    std::size_t waiting = 0;  // its accepted puts that wait for a place
  };

  // mutex held: how many streams wait for a place.
  std::size_t waiting_count() const {
    std::size_t n = 0;
    for (const auto& [name, run] : streams) n += is_waiting(*run);
    return n;
  }

  // save_mutex held: `spec` checked as put() promises, planned, and its files entered in
  // the index (so that the batch's later puts see them); nullptr when it changes nothing.
  // Throws StreamRejected.
  std::shared_ptr<Run> prepare_put(const StreamSpec& spec, Batch& batch) {
    {
      std::lock_guard lock(mutex);
      if (draining) throw StreamRejected(503, "draining");
      const auto found = streams.find(spec.name);
      if (found != streams.end()) {
        Run& old = *found->second;
        if (old.spec.source != spec.source) throw StreamRejected(409, made_by_other(spec.name, old.spec.source));
        // A retry (a client's, a proxy's, DeepStream's add again) of what already is: nothing
        // to do. A failed stream is the exception: asking for it again is asking it to start.
        if (old.spec == spec && refresh_state(old, published_stats(old)) != StreamState::Failed) return nullptr;
      }
    }
    StreamPlan plan = templates.plan(spec);  // the file system, without the mutex
    std::lock_guard lock(mutex);
    if (draining) throw StreamRejected(503, "draining");
    if (const std::string clash = files.clashes(spec.name, plan.files); !clash.empty()) throw StreamRejected(409, clash);
    // The stream's owner was checked above; changes are made one at a time (save_mutex), and a
    // restart since then put a run of the same spec in its place.
    const auto found = streams.find(spec.name);
    const bool own_place = found != streams.end() && found->second->owns_place.load();
    const bool free_place = limiter.running() + batch.places < limiter.cap();
    // A live API input needs a place now: its own predecessor's, or a free one.
    if (!own_place && !free_place && plan.endless && spec.source == StreamSource::Api)
      throw StreamRejected(503, kWaitingForPlace);  // the HTTP layer adds max_streams (info().capacity)
    // A file waits behind the others; a live list stream waits for a place to free.
    const bool waits = !own_place && (!free_place || (!plan.endless && (batch.waiting > 0 || anyone_waiting())));
    // A waiting stream replaced leaves the queue as its successor joins it.
    const bool replaces_waiting = found != streams.end() && is_waiting(*found->second);
    const std::size_t queued = waiting_count() - (replaces_waiting ? 1 : 0) + batch.waiting;
    if (waits && options.max_waiting > 0 && queued >= options.max_waiting)
      throw StreamRejected(503, fmt::format("{}: {} streams already wait for a place (--max-waiting {})",
                                            kWaitingForPlace, queued, options.max_waiting));
    if (waits)
      ++batch.waiting;
    else if (!own_place)
      ++batch.places;
    // What the run it replaces wrote (or is still writing) is kept: new files beside it.
    move_outputs_beside_existing(plan, [this](const std::string& path) { return files.written(path); });
    auto run = make_run(spec, std::move(plan));
    files.add(run->id, spec.name, run->plan.files);
    return run;
  }

  // save_mutex held: whether stream `name` exists and `by` may remove it (else StreamRejected 409).
  bool check_remove(const std::string& name, StreamSource by) {
    std::lock_guard lock(mutex);
    const auto found = streams.find(name);
    if (found == streams.end()) return false;
    if (found->second->spec.source != by) throw StreamRejected(409, made_by_other(name, found->second->spec.source));
    return true;
  }

  // mutex held: the prepared `run` takes the place of its name's stream (if any). Its place:
  // the one of the run it replaces, else a free one; a live input gets none by waiting (it
  // would never give it back), a file waits for one behind the others.
  StreamManager::PutOutcome make_put(const std::shared_ptr<Run>& run) {
    const std::string& name = run->spec.name;
    const auto found = streams.find(name);
    const std::shared_ptr<Run> old = found != streams.end() ? found->second : nullptr;
    bool place = old != nullptr && old->owns_place.exchange(false);
    if (!place && (run->plan.endless || !anyone_waiting())) place = limiter.try_admit();
    run->predecessor = unfinished_run_named(name);
    // A place taken since the check (a waiting file started meanwhile): on disk already, so
    // listed as the restore lists it rather than refused after the fact.
    if (!place && run->plan.endless && run->spec.source == StreamSource::Api) run->rejected = kWaitingForPlace;
    if (old) {
      old->stop = true;
      retire(old);
    }
    streams[name] = run;
    if (place) {
      run->owns_place = true;
      start(run);
    }
    return old ? StreamManager::PutOutcome::Replaced : StreamManager::PutOutcome::Created;
  }

  // mutex held: stream `name` stops and is forgotten (finalizing on its own thread).
  void make_remove(const std::string& name) {
    const auto found = streams.find(name);
    if (found == streams.end()) return;  // cannot happen: changes are made one at a time
    const std::shared_ptr<Run> run = found->second;
    run->removed = true;
    run->stop = true;
    release_kept_place(*run);  // waiting for a restart: its place frees now
    streams.erase(found);
    retire(run);
  }
};

StreamManager::StreamManager(StreamManagerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  impl_->restoring = true;
  // Before the supervisor starts: a state file that cannot be read throws from here, and
  // nothing would join that thread.
  if (impl_->options.restore_at_start) {
    restore();
    begin_serving();
  }
  impl_->supervisor_beat = Clock::now().time_since_epoch().count();
  impl_->supervisor = std::thread([this] { impl_->supervise_loop(); });
}

void StreamManager::restore() {
  Impl& m = *impl_;
  if (!m.restoring) return;
  {
    std::lock_guard change(m.save_mutex);
    if (const fs::path& file = m.options.state_file; !file.empty()) {
      const RestorableStreams restorable = restorable_streams(read_stream_state(file), file, m.options.has_stream_list);
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
  std::vector<std::pair<std::size_t, std::shared_ptr<Run>>> accepted;  // a removal's run: nullptr
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
      } else if (std::shared_ptr<Run> run = m.prepare_put(c.spec, batch)) {
        accepted.emplace_back(i, std::move(run));
      } else {
        results[i].outcome = Outcome::Unchanged;
      }
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
    for (const auto& [i, run] : accepted) {
      if (!run) {
        m.make_remove(changes[i].spec.name);
        results[i].outcome = Outcome::Removed;
      } else {
        results[i].outcome = m.make_put(run) == PutOutcome::Created ? Outcome::Created : Outcome::Replaced;
      }
    }
  }
  m.wake.notify_all();
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

StreamManager::PutOutcome StreamManager::put(const StreamSpec& spec) {
  const StreamChangeResult result = apply({StreamChange{.spec = spec, .remove = false}}).front();
  switch (result.outcome) {
    case StreamChangeResult::Outcome::Created: return PutOutcome::Created;
    case StreamChangeResult::Outcome::Replaced: return PutOutcome::Replaced;
    case StreamChangeResult::Outcome::Unchanged: return PutOutcome::Unchanged;
    default: throw StreamRejected(result.status, result.error);
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
    if (run->removed && !run->ended && !impl_->streams.contains(run->spec.name)) all.push_back(impl_->status_of(*run));
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  return all;
}

std::optional<StreamStatus> StreamManager::get(const std::string& name) const {
  for (auto& status : list())
    if (status.name == name) return std::move(status);
  return std::nullopt;
}

std::vector<std::string> StreamManager::pipelines() const { return impl_->templates.names(); }

ManagerInfo StreamManager::info() const {
  ManagerInfo info;
  info.capacity = impl_->limiter.cap();
  for (const auto& status : list()) ++info.streams_by_state[stream_state_name(status.state)];
  info.draining = draining();
  // Started and not draining. Not whether each stream is well: one dead camera (or one
  // stuck executor, which alive() reports) must not take the whole service out of rotation.
  info.ready = !info.draining && impl_->serving && !impl_->restoring && impl_->supervisor_alive();
  return info;
}

std::optional<Frame> StreamManager::frame(const std::string& name, const std::string& node,
                                          std::chrono::milliseconds wait) {
  std::shared_ptr<Run> run;
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
  m.draining = true;
  for (auto& [name, run] : m.streams) {
    run->stop = true;
    m.release_kept_place(*run);  // no restart after a drain
  }
  for (auto& run : m.retiring) run->stop = true;
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

bool StreamManager::draining() const {
  std::lock_guard lock(impl_->mutex);
  return impl_->draining;
}

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
