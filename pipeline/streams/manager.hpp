// The streams of a long-running process (`framepipe serve`): each one a pipeline template run
// on one input, started, replaced and removed at any time without touching the others. One
// executor (run_pipeline, on its own thread, with its own stop flag and RunMonitor) per
// stream. The desired state — which streams should exist — is kept apart from what runs, is
// written to a state file on every change and read back at start, so that a process killed
// with -9 and started again brings back the same streams.
//
// The HTTP layer (service/) is a thin front end over this class: nothing here knows HTTP,
// but a rejected request says which status it deserves (StreamRejected::status) and its
// message uses the wording of `framepipe validate`.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/frame.hpp"
#include "pipeline/engine/device.hpp"
#include "pipeline/engine/input_limits.hpp"
#include "pipeline/engine/run_options.hpp"
#include "pipeline/engine/run_stats.hpp"
#include "pipeline/capacity/capacity.hpp"
#include "pipeline/streams/planner.hpp"
#include "pipeline/streams/template.hpp"
#include "pipeline/streams/restart_backoff.hpp"
#include "pipeline/streams/stream_policy.hpp"
#include "pipeline/stream_spec/spec.hpp"
#include "pipeline/streams/status.hpp"

namespace fp {

// What tells `framepipe serve`'s use of the manager from `framepipe run`'s is policy, given
// here: how a spec becomes a plan (planner), what a live input finds at the cap (its
// StreamSource), whether a failure stops the others, whether failed live streams start
// again, whether an earlier run's outputs are kept. The defaults are serve's.
struct StreamManagerOptions {
  // How a spec becomes its run's plan. Null: serve's templates, `pipelines` confined to `roots`.
  std::shared_ptr<const StreamPlanner> planner;
  std::map<std::string, std::filesystem::path> pipelines;  // template name -> YAML file
  StreamRoots roots;
  std::size_t max_streams = 0;      // 0: as many as this machine's memory holds (stream_jobs.hpp)
  // Admission by cost (capacity.hpp): what a stream of each template costs (its `framepipe
  // bench --pipeline` result, serve --cost), and what the machine gives the streams (serve's
  // --cpu-budget and the machine's memory and GPUs). A stream takes its template's load with
  // its place; one whose load does not fit is refused (a live API stream, 503 "capacity"
  // naming the resource) or waits (a list stream, a file), as at the cap. A template without
  // a cost takes no load, and the process's measured CPU time still counts (set_measured_cpu).
  std::map<std::string, PipelineCost> template_costs;
  CapacityBudget budget;            // unlimited by default: the cap alone
  // serve: each stream also holds the memory it is estimated to need (stream_jobs.hpp) at the
  // size its request names (testsrc://WxH, v4l2 size; else its template's input's, else 1920x1080),
  // and once its input opens at its real size (more than that fails it, "capacity: memory",
  // when the budget cannot take the difference); and a stream of a template without a cost
  // holds the cores its template was seen to use per megapixel a second (learned_costs.hpp;
  // a conservative guess for one never seen) at its request's pixels a second. The
  // template's own size caps the count only. run: off (its --jobs is the cap).
  bool admit_by_request = false;
  std::vector<Device> devices;      // streams are spread over these
  RunOptions run;                   // per stream (queue depth, slots, drop); `stop` is the manager's own
  std::filesystem::path state_file;  // empty: the desired state is not persisted (else one of roots.own_files too)
  // A stream list (serve --stream-list) takes over the list streams restored from the state
  // file. Without one they are dropped at start (logged, the file written again without
  // them): nothing could ever remove or replace them (restorable_streams.hpp).
  bool has_stream_list = false;
  InputLimits input_limits;          // the largest, fastest input a stream may have (none: no limit)
  // A live stream that fails (API or list, first open or later) is started again after
  // these waits (serve --restart-wait, --restart-wait-max); a file input that fails stays failed.
  RestartPolicy restart;
  // What happens on a failure, to earlier outputs, and who looks at the streams: serve's
  // (StreamPolicy::serve(), the default) or run's (StreamPolicy::batch()).
  StreamPolicy policy = StreamPolicy::serve();
  // The most streams that may wait for a place (files behind the others, list streams beyond
  // the cap): a put that would wait beyond it is refused, 503 (serve --max-waiting). 0: no cap.
  std::size_t max_waiting = 0;
  // Restore the state file's streams in the constructor, and be ready. Off (serve): the
  // constructor returns at once, changes are refused (503) and info().ready is false until
  // restore() and begin_serving(): the listener answers /livez from the first moment.
  bool restore_at_start = true;
};

// A put refused for want of room (503): the resource that has none, as the API names it
// (capacity_resource_name). what() is "capacity" (the stream cap) or "capacity: RESOURCE",
// as a waiting stream's last_error says it.
class CapacityRejected : public StreamRejected {
 public:
  CapacityRejected(std::string resource, const std::string& message)
      : StreamRejected(503, message), resource_(std::move(resource)) {}
  const std::string& resource() const { return resource_; }

 private:
  std::string resource_;
};

struct ManagerInfo {
  std::size_t capacity = 0;  // max streams
  CapacityBudget budget;     // what the streams may use (capacity: its `streams`)
  CapacityLoad used;         // what the running streams' places hold (cpu: or the measured, the larger)
  std::size_t max_running = 0;  // the most streams that ran at once so far
  std::map<std::string, int> streams_by_state;
  bool draining = false;
  bool ready = false;  // started, device up, not draining
  std::map<std::string, double> learned_cores_per_mpps;  // serve: per template (learned_costs.hpp)
};

class StreamManager {
 public:
  // Reads the state file (when there is one) and starts the streams it lists, but for the
  // entries restorable_streams() leaves out (logged, and the file written again without
  // them). Throws std::runtime_error for a template that does not load, or an unreadable
  // state file.
  explicit StreamManager(StreamManagerOptions options);
  // With restore_at_start off: reads the state file and starts its streams (as the
  // constructor does otherwise); changes are taken from then on. Throws as the constructor.
  void restore();
  // From now on info().ready may be true (serve: once the state and the stream list are in force).
  void begin_serving();
  // Stops every stream (outputs finalized), as drain() does with no limit.
  ~StreamManager();
  StreamManager(const StreamManager&) = delete;
  StreamManager& operator=(const StreamManager&) = delete;

  enum class PutOutcome { Created, Replaced, Unchanged };
  // Validates `spec` like `framepipe validate` (template, overrides, paths confined to the
  // roots), then creates the stream or replaces the one of that name (only it restarts).
  // A spec equal to the stream's own changes nothing (Unchanged: a retried PUT), unless the
  // stream failed: then it starts again. A run never truncates a file it finds: an output
  // already there (an earlier run's) is written beside it (fresh_outputs.hpp).
  // The desired state is saved first and the change made only once it is on disk: a state
  // file that cannot be written is StreamRejected 500 with nothing changed. Throws
  // StreamRejected (409 for a name that another source made). A live input finds no free
  // place: the API's is refused (503 "capacity"); the list's waits, listed as waiting, until
  // one frees (the list says it must run: it is reported, not dropped).
  PutOutcome put(const StreamSpec& spec);
  // Stops the stream and forgets it: false for an unknown name; StreamRejected 409 when
  // `by` did not make it, 500 when the state file cannot be written (the stream still runs
  // and is still in the file). Returns at once; its outputs are finalized on the stream's
  // own thread (it shows as draining until then).
  bool remove(const std::string& name, StreamSource by = StreamSource::Api);
  // Puts and removals checked one by one as put() and remove() check them (each one's
  // refusal its own), the state file written once for all that were accepted, then made
  // (a failed write refuses them all, 500, nothing changed): a stream list of thousands is
  // applied in one write. A name may appear once. put() and remove() are batches of one.
  std::vector<StreamChangeResult> apply(const std::vector<StreamChange>& changes);
  // The desired state: every stream's spec (credentials included: never to be shown).
  std::vector<StreamSpec> specs() const;

  std::vector<StreamStatus> list() const;
  std::optional<StreamStatus> get(const std::string& name) const;
  std::vector<std::string> pipelines() const;  // the templates' names

  // serve's SIGHUP: every template file read again (StreamTemplates::reload: one that does
  // not load keeps its last good text). The streams of a template that changed, those not
  // ended, are planned again and replaced, as a changed entry of the stream list is (outputs
  // kept beside); a failed live stream waiting for its restart takes the new one then.
  struct TemplatesReloaded {
    TemplateReload templates;
    std::vector<std::string> restarted;  // streams replaced
    std::vector<std::string> refused;    // "NAME: why" for a stream the new template cannot run (it runs on)
  };
  TemplatesReloaded reload_templates();
  // Counts the streams by state from what the manager keeps as states change, not by
  // building each stream's status: /v1/info and /metrics among 10,000 streams cost the same
  // as among 10. A stream's state there is its state at its last look (the supervisor looks
  // at every stream four times a second; a change or a query of it looks at once).
  ManagerInfo info() const;
  // info().ready alone, without counting anything (/readyz, which probes ask often).
  bool ready() const;

  // The next frame of node `node` of stream `name` (empty: the frame its first output
  // writes) as a host I420 frame. Throws StreamRejected 404 (no such stream or node) or
  // 409 (not running); nullopt when no frame came within `wait`.
  std::optional<Frame> frame(const std::string& name, const std::string& node, std::chrono::milliseconds wait);

  // Refuses further puts (503 "draining"), stops every stream and waits until each has
  // finalized its outputs or `timeout` has passed; true when all ended in time. The
  // desired state is kept (a restart brings the streams back).
  bool drain(std::chrono::milliseconds timeout);
  bool draining() const;
  // The streams whose run has started and not ended yet: after a drain() that timed out,
  // the ones that did not finish (a stream that ended by a drain still shows `draining`).
  std::vector<std::string> unfinished() const;
  // The manager's own supervisor thread has gone round within the last 5 s, and no running
  // stream's executor is stuck (has published nothing for 5 minutes: manager_impl.hpp).
  bool alive() const;
  // The supervisor alone (what systemd's watchdog follows: a stuck stream is that stream's,
  // restarted by the manager; a stuck manager needs the process restarted).
  bool supervising() const;
  // One look at every stream, as the supervisor thread takes a few times a second: joins the
  // runs that ended, gives their places to the streams waiting, samples fps and latency,
  // starts the restarts that are due, saves the state file when a stream finished. For a
  // client that runs the manager without that thread (Supervision::CallersLoop).
  void look();
  // Nothing runs and nothing will start by itself: every stream started has ended and none
  // waits for a place (or the manager stopped them all: drain, OnFailure::StopAll), and no
  // failed live stream waits to start again. A batch (`framepipe run`) is over then.
  bool settled() const;
  // What stream `name`'s last run threw, as it threw it (its type and message); null when
  // it has not failed. For a client that reports one stream's failure as a run of its own
  // does (`framepipe run` with one input).
  std::exception_ptr failure(const std::string& name) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fp
