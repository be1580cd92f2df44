// The stream manager's own parts (manager.hpp is its face): a ManagedRun per executor and
// the manager's state, shared by the files that each do one of its jobs:
//   manager.cpp           put/remove/apply/restore/drain and the supervisor's look
//   run_thread.cpp        a run's thread, its start, its hand-over to a successor, restarts
//   stream_telemetry.cpp  a run's state and status, its fps and recent-latency windows
//   admission.cpp         places (the cap), waiting streams, a put's checks
//   desired_state.cpp     the desired state on disk: saved before a change, restored at start
// Private to pipeline/streams/.
#pragma once
#if !defined(FRAMEPIPE_ROOM_STREAMS)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/streams/manager_impl.hpp is private to pipeline/streams/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include "pipeline/streams/manager.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <array>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <system_error>
#include <thread>

#include "core/cpu_account.hpp"
#include "core/process_usage.hpp"
#include "media/output_target.hpp"
#include "media/stream_uri.hpp"
#include "pipeline/engine/executor.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "pipeline/streams/file_index.hpp"
#include "pipeline/streams/fresh_outputs.hpp"
#include "pipeline/capacity/jobs.hpp"
#include "pipeline/streams/learned_costs.hpp"
#include "pipeline/capacity/limiter.hpp"
#include "pipeline/streams/restorable_streams.hpp"
#include "pipeline/stream_spec/state_file.hpp"
#include "pipeline/streams/template.hpp"
#include "stages/registry.hpp"

namespace fp {

using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;  // a private header, included by the manager's files alone

inline constexpr auto kSupervisorInterval = 250ms;
inline constexpr auto kFpsWindow = 3s;          // fps is measured over this much of the recent past
// Recent latency: the histogram as it was about kLatencyWindow ago is kept (one copy every
// kLatencySampleEvery, ~19 KB each) and subtracted from the current one.
inline constexpr auto kLatencyWindow = 10s;
inline constexpr auto kLatencySampleEvery = 2s;
// The process's CPU time is averaged over this much of the recent past (admission's measure).
inline constexpr auto kCpuWindow = 10s;
inline constexpr auto kSupervisorHeartbeatLimit = 5s;  // a supervisor silent longer is not alive
// A run whose graph thread published nothing for longer (no frame finished, no poll of an idle
// input) is stuck, and /livez fails. Much longer than any frame: a slow stream is that
// stream's problem (its state, fps and drops), never the process's liveness.
// temporal_nlmeans at its parameter maxima on 4096x2160 took 25 s a frame on a 2-core
// machine, and a restart of the process would not make it faster.
inline constexpr auto kStalledRunLimit = 300s;
inline constexpr auto kStartGrace = 10s;        // ... unless it started less than this ago (inputs opening)
// A replacement waits for the run it replaces on `wake`; this often it also checks whether it
// was itself stopped meanwhile.
inline constexpr auto kPredecessorStopCheck = 200ms;

// The last_error of a stream waiting for a place: the word the API's 503 uses (then ": " and
// the resource that has no room, capacity.hpp).
inline constexpr const char* kWaitingForPlace = "capacity";
std::string waiting_for_text(CapacityResource resource);  // "capacity: cpu_encode"

// One run of one spec: from put() until its thread has ended and been joined.
struct ManagedRun {
  StreamSpec spec;
  StreamPlan plan;
  Device device;
  std::uint64_t order = 0;  // put order: streams waiting for a place start in it
  std::uint64_t id = 0;     // its entry in Impl::files

  RunMonitor monitor;
  std::atomic<bool> stop{false};
  std::atomic<bool> ended{false};
  std::atomic<bool> owns_place{false};  // holds one of the limiter's places (given back once)
  CapacityLoad load;                    // what its place holds of the budget: its template's cost
  std::shared_ptr<ManagedRun> predecessor;     // its thread only: the run whose outputs it takes over
  std::thread thread;
  // Written by the run's thread before `ended`, read after it.
  RunStats result;
  std::string error;
  std::exception_ptr failure;  // what run_pipeline threw (error is its masked message)

  // Under Impl::mutex.
  bool started = false;
  bool removed = false;            // remove(): forgotten once ended
  bool counted = false;            // in Impl::state_counts under `state` (count_state)
  bool finished_on_disk = false;   // the state file marks it finished (restored as such, or saved so)
  std::string rejected;            // restored from the state file but no longer valid: failed with this
  bool refused_capacity = false;   // its input opened larger than it was admitted with, and no room: not restarted
  CapacityResource waiting_for = CapacityResource::Streams;  // while it waits: what has no room
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
  Clock::duration heartbeat_limit = kStalledRunLimit;
  std::deque<std::pair<Clock::time_point, std::int64_t>> samples;  // (when, frames), for fps
  // Its CPU (core/cpu_account.hpp): what its threads and the CPU pool's work for it were
  // charged, over kCpuWindow; and with its share of what no account holds (cpu_cores_of).
  CpuAccount cpu;
  CpuRateWindow cpu_window{kCpuWindow};
  double own_cores = 0;
  double cpu_cores = 0;
  // Its input's frame size once opened (from its thread): what its share is weighed by.
  std::atomic<int> opened_width{0};
  std::atomic<int> opened_height{0};
  std::deque<std::pair<Clock::time_point, LatencyHistogram>> latency_samples;  // for recent latency
  double fps = 0;
};

// How long the run's graph thread may be silent: a second of heartbeats, or the time an
// input may take to open (twice its timeout_ms, the one stretch without a heartbeat).
Clock::duration heartbeat_limit(const PipelineDefinition& definition);

// Why a put or remove of `name` by the other source is refused.
std::string made_by_other(const std::string& name, StreamSource owner);

struct StreamManager::Impl {
  StreamManagerOptions options;
  std::shared_ptr<StreamTemplates> templates;  // serve's (no options.planner): reloaded on SIGHUP
  std::shared_ptr<const StreamPlanner> planner;
  StreamLimiter limiter;

  mutable std::mutex mutex;
  std::condition_variable wake;  // a run ended, or the manager is closing
  std::map<std::string, std::shared_ptr<ManagedRun>> streams;  // the desired state
  std::vector<std::shared_ptr<ManagedRun>> retiring;           // replaced, removed or drained: until joined
  // The runs in each state (info(): no status built to count them): those of `streams`, and
  // those removed and still finalizing (list() shows one only while no new stream has its
  // name; counted, it is one more run draining). Kept by count_state and by refresh_state as
  // a counted run's state changes.
  std::array<int, kStreamStateCount> state_counts{};
  // The files of every run that may read or write now: in `streams`, or retiring and not ended.
  StreamFileIndex files;
  std::uint64_t next_order = 0;
  std::uint64_t next_run_id = 1;
  std::size_t next_device = 0;
  bool draining = false;
  bool closing = false;
  bool reap_due = false;  // a run's thread ended: the supervisor joins it now (run_stream)
  std::atomic<Clock::rep> supervisor_beat{0};
  std::thread supervisor;
  std::mutex save_mutex;
  // From construction until restore() has brought back the state file's streams: changes
  // are refused (a save would write the file without the streams not yet restored).
  std::atomic<bool> restoring{false};
  std::atomic<bool> serving{false};  // begin_serving(): ready from now on
  std::atomic<bool> save_pending{false};  // the supervisor's save found save_mutex busy: again next time
  CpuRateWindow cpu_rate{kCpuWindow};     // the process's cores busy (supervisor only)
  LearnedCosts learned;                   // admit_by_request: what each template's streams were seen to use

  explicit Impl(StreamManagerOptions opts)
      : options(std::move(opts)),
        templates(options.planner ? nullptr
                                  : std::make_shared<StreamTemplates>(
                                        options.pipelines, roots_with_state_file(options),
                                        AutoBackend(options.devices.empty() ? DeviceKind::Cpu
                                                                            : options.devices.front().kind),
                                        options.input_limits)),
        planner(options.planner ? options.planner : templates),
        limiter(capacity_of(options, *planner), options.budget) {
    if (options.devices.empty()) options.devices.push_back(Device{});
    // spdlog makes its registry on first use; made here, before any stream thread starts,
    // so that two streams logging their first line at once do not both make it (libspdlog's
    // own guard is invisible to ThreadSanitizer, which then reports the registry's level).
    spdlog::default_logger_raw();
  }

  // The roots with the state file among the service's own files: no stream writes it, or beside it.
  static StreamRoots roots_with_state_file(const StreamManagerOptions& options);

  // What a stream of this spec's template holds of the budget (its cost; none when unknown).
  CapacityLoad load_of(const StreamSpec& spec, const StreamPlan& plan) const;
  // The memory a stream of `plan` needs at `width`x`height` (admit_by_request).
  CapacityLoad memory_at(const StreamPlan& plan, int width, int height) const;
  // admit_by_request, from the run's thread once its input opened at its real size: a load
  // grown to it, or CapacityRejected (the run fails with it, not to be started again).
  void recheck_memory(ManagedRun& run, int width, int height);

  // max_streams, or what this machine's memory holds for the largest of the pipelines.
  static std::size_t capacity_of(const StreamManagerOptions& options, const StreamPlanner& planner);

  // A new run's outputs: beside what an earlier run of the stream wrote, when the options
  // keep earlier outputs (serve), else where its plan says (run).
  void keep_earlier_outputs(StreamPlan& plan) const;

  // mutex held: every stream stops and none starts any more (drain(), OnFailure::StopAll).
  void stop_everything();

  std::shared_ptr<ManagedRun> make_run(const StreamSpec& spec, StreamPlan plan);

  // mutex held: the run ended failed by itself (not stopped by remove, replace or drain) and
  // is live: it will be started again, so it keeps its place meanwhile. A file stays failed.
  bool restartable(const ManagedRun& run) const;

  // mutex held: an ended run whose successor starts at restart_at (none once it is stopped).
  static bool awaiting_restart(const ManagedRun& run);

  // mutex held: gives back the place of a run taken out of the desired state after it ended
  // holding one for its restart (a run still going gives its own back when it ends).
  void release_kept_place(ManagedRun& run);

  // mutex held: the failed live run's wait before its successor starts.
  void plan_restart(ManagedRun& run);

  // mutex held: the successor of a failed live run whose wait is over, in its place (the
  // same spec, order, device, limiter place, back-off), started now. Its outputs are planned
  // anew and never truncate what the failed run wrote (fresh_outputs.hpp).
  void restart(const std::shared_ptr<ManagedRun>& old);

  // mutex held: a stream that waits for a place (start_waiting() starts it when one frees).
  static bool is_waiting(const ManagedRun& run);
  // Removed, and its thread still finalizing its outputs: listed (and found by name) until it
  // ends, unless a new stream of its name is. Mutex held.
  static bool finalizing_removed(const ManagedRun& run) { return run.removed && !run.ended; }
  // mutex held: run counted in state_counts or not, under its state as last refreshed.
  void count_state(ManagedRun& run, bool counted) {
    if (run.counted == counted) return;
    run.counted = counted;
    state_counts[static_cast<std::size_t>(run.state)] += counted ? 1 : -1;
  }

  // A live stream of run's command line: it takes a place whatever the cap (StreamSource).
  static bool beyond_cap(const StreamSpec& spec, const StreamPlan& plan) {
    return plan.endless && spec.source == StreamSource::Command;
  }

  bool anyone_waiting() const;

  // The run's thread: waits for the run it replaces to finalize its outputs, then runs.
  static void run_stream(Impl& impl, ManagedRun& run);

  // mutex held. The run has its place (or needs none); its thread starts now.
  void start(const std::shared_ptr<ManagedRun>& run);

  // What the run's executor has published (its final stats once ended): one copy, which the
  // state, the status and the supervisor's samples all read.
  static RunStats published_stats(ManagedRun& run);

  // mutex held: the state it shows now (`since` follows its changes); `published`: published_stats(run).
  StreamState refresh_state(ManagedRun& run, const RunStats& published);

  // One line per change an operator cares about (the log is what a service leaves behind).
  static void log_state_change(const ManagedRun& run, StreamState state);

  // mutex held.
  StreamStatus status_of(ManagedRun& run);

  // mutex held: the supervisor's sample of a started run's frames and latency, `published`
  // by it now: its fps over the last kFpsWindow, its recent latency over kLatencyWindow.
  static void sample(ManagedRun& run, RunStats published, Clock::time_point now);
  // Each running stream's cpu_cores: its own (own_cores) and a share of what the process
  // used beyond every stream's account (x264's and FFmpeg's own threads, which no account
  // can be charged with), split by the pixels each stream's frames carry a second. Mutex held.
  void attribute_cpu();
  // Teaches `learned` each stream's cpu_cores once they cover a whole CPU window; true when
  // that is worth writing to the state file. Mutex held.
  bool learn_costs(Clock::time_point now);
  // Of `costs`, those learned of the templates' texts in force (an edited one is guessed again).
  std::map<std::string, LearnedCost> learned_in_force(const std::map<std::string, LearnedCost>& costs) const;
  // What a state file kept of the costs learned, for the templates' texts in force.
  void restore_learned(const std::map<std::string, LearnedCost>& kept);

  // mutex held: joins the threads of runs that ended; forgets retired ones.
  void reap();

  // mutex held: waiting file inputs take the places that freed, in put order.
  void start_waiting();

  // One look at everything; true when the state file must be saved (a stream finished).
  bool supervise();

  void supervise_loop();

  // The supervisor's sample of the process's CPU time: the limiter's measured cores.
  void measure_cpu(Clock::time_point now);

  // mutex held: the desired state as the state file keeps it, in put order, without `except`.
  std::vector<SavedStream> saved_streams(const std::set<std::string>& except = {}) const;

  // save_mutex held: `saved` on disk before the change it describes is made, or
  // StreamRejected 500 saying nothing changed.
  void persist(const std::vector<SavedStream>& saved, const std::string& change);

  // The supervisor's save (a stream finished): never waits for a change or a restore in
  // progress, which would stop its heartbeat (/livez); tried again at its next look.
  void save();

  // save_mutex held: the desired state as it is now, on disk.
  void write_state();
  // save_mutex held: `streams` and the costs learned now, on disk (throws what writing throws).
  void write_state_file(std::vector<SavedStream> saved);

  // mutex held: `run` leaves the desired state; joined by reap(). Its files stay in use
  // until its thread has ended (a replacement opens them only then).
  void retire(const std::shared_ptr<ManagedRun>& run);

  void save_logged();

  bool supervisor_alive() const;

  // mutex held: every run whose thread has not ended.
  bool all_ended() const;

  // mutex held: the run a new one of this name must wait for (still finalizing its outputs).
  std::shared_ptr<ManagedRun> unfinished_run_named(const std::string& name) const;

  // Streams of the state file, as put() would make them, except that one no longer valid
  // (its template changed) is listed as failed with the reason, and a live one beyond the
  // cap as failed with "capacity": a service must come up whatever one stream's fate.
  // The names are unique (restorable_streams): a second run of one name would replace a
  // started one in the map, destroying its joinable thread (std::terminate). Each stream is
  // planned without the mutex and added under it, so probes and listings answer meanwhile.
  void restore(const std::vector<SavedStream>& saved);

  // Several puts and removals waiting on one another's state write (apply()).
  struct Batch {
    std::size_t places = 0;   // places its accepted puts take (beyond their predecessors')
    CapacityLoad load;        // and the loads of those places
    std::size_t waiting = 0;  // its accepted puts that wait for a place
  };

  // mutex held: how many streams wait for a place.
  std::size_t waiting_count() const;

  // save_mutex held: `spec` checked as put() promises, planned, and its files entered in
  // the index (so that the batch's later puts see them); nullptr when it changes nothing.
  // Throws StreamRejected.
  // `replan`: planned again even when the spec is the one running (its template changed).
  std::shared_ptr<ManagedRun> prepare_put(const StreamSpec& spec, Batch& batch, bool replan = false);

  // save_mutex held: whether stream `name` exists and `by` may remove it (else StreamRejected 409).
  bool check_remove(const std::string& name, StreamSource by);

  // mutex held: the prepared `run` takes the place of its name's stream (if any). Its place:
  // the one of the run it replaces, else a free one; a live input gets none by waiting (it
  // would never give it back), a file waits for one behind the others.
  StreamManager::PutOutcome make_put(const std::shared_ptr<ManagedRun>& run);

  // mutex held: stream `name` stops and is forgotten (finalizing on its own thread).
  void make_remove(const std::string& name);
};

}  // namespace fp
