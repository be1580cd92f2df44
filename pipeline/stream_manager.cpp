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
#include "pipeline/stream_manager.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

#include "media/output_target.hpp"
#include "media/stream_uri.hpp"
#include "pipeline/fresh_outputs.hpp"
#include "pipeline/restorable_streams.hpp"
#include "pipeline/run_monitor.hpp"
#include "pipeline/stream_jobs.hpp"
#include "pipeline/stream_limiter.hpp"
#include "pipeline/stream_state_file.hpp"
#include "pipeline/stream_template.hpp"
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

const char* stream_state_name(StreamState state) {
  switch (state) {
    case StreamState::Waiting: return "waiting";
    case StreamState::Starting: return "starting";
    case StreamState::Running: return "running";
    case StreamState::Reconnecting: return "reconnecting";
    case StreamState::Finished: return "finished";
    case StreamState::Failed: return "failed";
    case StreamState::Draining: return "draining";
  }
  return "unknown";
}

const char* stream_source_name(StreamSource source) { return source == StreamSource::List ? "list" : "api"; }

std::int64_t input_reconnects(const RunStats& published) {
  std::int64_t total = 0;
  for (const auto& stage : published.stages) {
    const StageSpec* spec = find_stage(stage.type);
    if (spec != nullptr && spec->role == StageRole::Source && stage.reconnect) total += stage.reconnect->reconnects;
  }
  return total;
}

StreamState live_stream_state(const RunStats& published, bool reconnecting) {
  if (reconnecting) return StreamState::Reconnecting;
  if (published.frames > 0) return StreamState::Running;
  for (const auto& stage : published.stages)
    if (stage.frames > 0) return StreamState::Running;
  return StreamState::Starting;
}

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
    if (stage.type == "decode" && stage.params.has("timeout_ms"))
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
  std::uint64_t next_order = 0;
  std::size_t next_device = 0;
  bool draining = false;
  bool closing = false;
  std::atomic<Clock::rep> supervisor_beat{0};
  std::thread supervisor;
  std::mutex save_mutex;

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
      move_outputs_beside_existing(plan, [this](const std::string& path) { return output_in_use(path); });
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
    retiring.push_back(old);  // joined by reap()
    if (!next->rejected.empty()) {
      if (place) limiter.release();
      return;
    }
    spdlog::info("stream {}: starting it again (restart {})", name, next->restarts);
    next->owns_place = place;
    start(next);
  }

  bool anyone_waiting() const {
    for (const auto& [name, run] : streams)
      if (!run->started && run->rejected.empty() && !run->finished_on_disk) return true;
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
      options.realtime = options.realtime || run.plan.definition.realtime.value_or(false);
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
    std::erase_if(retiring, [](const std::shared_ptr<Run>& run) { return run->ended || !run->started; });
  }

  // mutex held: waiting file inputs take the places that freed, in put order.
  void start_waiting() {
    if (draining) return;
    std::vector<std::shared_ptr<Run>> waiting;
    for (const auto& [name, run] : streams)
      if (!run->started && run->rejected.empty() && !run->finished_on_disk) waiting.push_back(run);
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
      if (supervise()) save_logged();
      std::unique_lock lock(mutex);
      wake.wait_for(lock, kSupervisorInterval, [this] { return closing; });
    }
  }

  // mutex held: the desired state as the state file keeps it, in put order, without `except`.
  std::vector<SavedStream> saved_streams(const std::string& except = {}) const {
    std::vector<std::shared_ptr<Run>> runs;
    for (const auto& [name, run] : streams)
      if (name != except) runs.push_back(run);
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

  void save() {
    if (options.state_file.empty()) return;
    std::lock_guard save_lock(save_mutex);
    std::vector<SavedStream> saved;
    {
      std::lock_guard lock(mutex);
      saved = saved_streams();
    }
    write_stream_state(options.state_file, saved);
  }

  // mutex held: whether a path is written by a run that may still write it.
  bool output_in_use(const std::string& path) const {
    for (const auto& [name, plan] : plans_in_use())
      for (const auto& use : plan->files)
        if (use.written && use.path == path) return true;
    return false;
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

  // mutex held: the plans of every stream that may write or read now (for clashes).
  std::vector<std::pair<std::string, const StreamPlan*>> plans_in_use() const {
    std::vector<std::pair<std::string, const StreamPlan*>> plans;
    for (const auto& [name, run] : streams) plans.emplace_back(name, &run->plan);
    for (const auto& run : retiring)
      if (!run->ended) plans.emplace_back(run->spec.name, &run->plan);
    return plans;
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
  // started one in the map, destroying its joinable thread (std::terminate).
  void restore(const std::vector<SavedStream>& saved) {
    std::lock_guard lock(mutex);
    for (const auto& entry : saved) {
      if (streams.contains(entry.spec.name)) continue;
      std::shared_ptr<Run> run;
      try {
        StreamPlan plan = templates.plan(entry.spec);
        check_stream_clashes(entry.spec.name, plan, plans_in_use());
        // The outputs of the run before the restart stay as they were (finalized or not).
        move_outputs_beside_existing(plan, [this](const std::string& path) { return output_in_use(path); });
        run = make_run(entry.spec, std::move(plan));
      } catch (const StreamRejected& e) {
        if (!run) run = make_run(entry.spec, StreamPlan{});
        run->rejected = mask_uris_in_text(e.what());
      }
      run->finished_on_disk = entry.finished;
      streams[entry.spec.name] = run;
      if (!run->rejected.empty() || run->finished_on_disk) continue;
      if (limiter.try_admit()) {
        run->owns_place = true;
        start(run);
      } else if (run->plan.endless && run->spec.source == StreamSource::Api) {
        run->rejected = "capacity";  // the list's wait for a place, as put() lets them
      }
    }
  }
};

StreamManager::StreamManager(StreamManagerOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {
  if (const fs::path& file = impl_->options.state_file; !file.empty()) {
    const RestorableStreams restorable =
        restorable_streams(read_stream_state(file), file, impl_->options.has_stream_list);
    for (const auto& line : restorable.refused) spdlog::error("{}", line);
    for (const auto& line : restorable.dropped) spdlog::warn("{}", line);
    impl_->restore(restorable.streams);
    if (restorable.rewrite()) impl_->save_logged();  // the next start reads what runs
  }
  impl_->supervisor_beat = Clock::now().time_since_epoch().count();
  impl_->supervisor = std::thread([this] { impl_->supervise_loop(); });
}

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

StreamManager::PutOutcome StreamManager::put(const StreamSpec& spec) {
  Impl& m = *impl_;
  if (draining()) throw StreamRejected(503, "draining");
  // One change at a time, from its checks to its state on disk to the change itself, so that
  // what is written is what is then made (readers take only `mutex`, never held while writing).
  std::lock_guard change(m.save_mutex);
  {
    std::lock_guard lock(m.mutex);
    const auto found = m.streams.find(spec.name);
    if (found != m.streams.end()) {
      Run& old = *found->second;
      if (old.spec.source != spec.source) throw StreamRejected(409, made_by_other(spec.name, old.spec.source));
      // A retry (a client's, a proxy's, DeepStream's add again) of what already is: nothing
      // to do. A failed stream is the exception: asking for it again is asking it to start.
      if (old.spec == spec && m.refresh_state(old, Impl::published_stats(old)) != StreamState::Failed)
        return PutOutcome::Unchanged;
    }
  }
  StreamPlan plan = m.templates.plan(spec);
  std::vector<SavedStream> saved;
  {
    std::lock_guard lock(m.mutex);
    if (m.draining) throw StreamRejected(503, "draining");
    check_stream_clashes(spec.name, plan, m.plans_in_use());
    // The stream's owner was checked above; changes are made one at a time (save_mutex), and a
    // restart since then put a run of the same spec in its place.
    const auto found = m.streams.find(spec.name);
    const std::shared_ptr<Run> old = found != m.streams.end() ? found->second : nullptr;
    // A live API input needs a place now: its own predecessor's, or a free one.
    const bool place_for_it = (old && old->owns_place.load()) || m.limiter.running() < m.limiter.cap();
    if (!place_for_it && plan.endless && spec.source == StreamSource::Api)
      throw StreamRejected(503, "capacity");  // the HTTP layer adds max_streams (info().capacity)
    // What the run it replaces wrote (or is still writing) is kept: new files beside it.
    move_outputs_beside_existing(plan, [&m](const std::string& path) { return m.output_in_use(path); });
    saved = m.saved_streams(spec.name);
    saved.push_back({spec, false});
  }
  m.persist(saved, fmt::format("stream {}: cannot save the state file", spec.name));

  PutOutcome outcome = PutOutcome::Created;
  {
    std::lock_guard lock(m.mutex);
    const auto found = m.streams.find(spec.name);
    const std::shared_ptr<Run> old = found != m.streams.end() ? found->second : nullptr;
    // Its place: the one of the run it replaces, else a free one; a live input gets none
    // by waiting (it would never give it back), a file waits for one behind the others.
    bool place = old != nullptr && old->owns_place.exchange(false);
    if (!place && (plan.endless || !m.anyone_waiting())) place = m.limiter.try_admit();
    auto run = m.make_run(spec, std::move(plan));
    run->predecessor = m.unfinished_run_named(spec.name);
    // A place taken since the check (a waiting file started meanwhile): on disk already, so
    // listed as the restore lists it rather than refused after the fact.
    if (!place && run->plan.endless && spec.source == StreamSource::Api) run->rejected = "capacity";
    if (old) {
      outcome = PutOutcome::Replaced;
      old->stop = true;
      m.retiring.push_back(old);
    }
    m.streams[spec.name] = run;
    if (place) {
      run->owns_place = true;
      m.start(run);
    }
  }
  m.wake.notify_all();
  spdlog::info("stream {}: {} (pipeline {}, input {}, from the {})", spec.name,
               outcome == PutOutcome::Created ? "added" : "replaced", spec.pipeline, mask_credentials(spec.uri),
               spec.source == StreamSource::List ? "stream list" : "API");
  return outcome;
}

bool StreamManager::remove(const std::string& name, StreamSource by) {
  Impl& m = *impl_;
  std::lock_guard change(m.save_mutex);
  std::vector<SavedStream> saved;
  {
    std::lock_guard lock(m.mutex);
    const auto found = m.streams.find(name);
    if (found == m.streams.end()) return false;
    if (found->second->spec.source != by) throw StreamRejected(409, made_by_other(name, found->second->spec.source));
    saved = m.saved_streams(name);
  }
  m.persist(saved, fmt::format("stream {}: cannot save the state file", name));
  {
    std::lock_guard lock(m.mutex);
    const auto found = m.streams.find(name);
    if (found == m.streams.end()) return false;  // cannot happen: changes are made one at a time
    const std::shared_ptr<Run> run = found->second;
    run->removed = true;
    run->stop = true;
    m.release_kept_place(*run);  // waiting for a restart: its place frees now
    m.streams.erase(found);
    m.retiring.push_back(run);
  }
  m.wake.notify_all();
  spdlog::info("stream {}: removed, finalizing its outputs", name);
  return true;
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
  info.ready = !info.draining && impl_->supervisor_alive();
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
