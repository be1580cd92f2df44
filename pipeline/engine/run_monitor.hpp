// A pipeline seen from outside while it runs. The executor publishes what it already counts
// (its RunStats: frames, drops, per-stage time, latency, reconnects, decode errors) a few
// times a second, and hands over the newest frame of a node when someone asks for one; a
// service reads both from other threads. Nothing is counted twice: the published stats are
// copies of the executor's own counters.
//
// Threads: each executor thread publishes only the node it owns (a source's thread its
// source, a sink's thread its sink, the graph's thread the processing stages and the run's
// totals); readers may call anything at any time. All of it is cheap for the writers: a
// publish is a short copy under a mutex, at most every kPublishInterval per node.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/frame.hpp"
#include "media/reconnect.hpp"
#include "pipeline/engine/latency_histogram.hpp"
#include "pipeline/engine/run_stats.hpp"

namespace fp {

class RunMonitor {
 public:
  static constexpr auto kPublishInterval = std::chrono::milliseconds(100);
  using Clock = std::chrono::steady_clock;

  RunMonitor() = default;
  RunMonitor(const RunMonitor&) = delete;
  RunMonitor& operator=(const RunMonitor&) = delete;

  // ---- readers (any thread) ----

  // The latest published statistics: `stages` in the pipeline's order (sources and sinks
  // included), `frames`, `frames_dropped`, `latency_ms` (every sink's, merged), `outputs`.
  // Before the executor has published anything: empty stages, zero counts.
  RunStats snapshot() const;
  // True while a source is between a lost stream and its first frame back (a reconnect).
  bool reconnecting() const;
  // The last time the graph's thread published (it does so at least every second while the
  // run is alive, frames or not); Clock::time_point{} before its first publish, which comes
  // once the inputs are open (opening a network input, bounded by its timeout_ms, has none).
  Clock::time_point last_heartbeat() const;
  // The ids of the nodes whose frames newest_frame() can give (every source and processing
  // stage; a sink gives the frame it writes, i.e. its input's), in the pipeline's order.
  // Empty until the run has set up its graph.
  std::vector<std::string> frame_nodes() const;
  // The next frame that node `id` produces, as a host I420 frame owned by the caller, or
  // nullopt when none came within `wait` (the run ended, or is between frames). The graph's
  // thread only adds an asynchronous download of that one frame to the slot's work: the
  // stream is never held up. Throws std::invalid_argument for an id not in frame_nodes().
  std::optional<Frame> newest_frame(const std::string& id, std::chrono::milliseconds wait);

  // ---- the executor (its own threads, as said above) ----

  // Once, on the graph's thread, before any thread starts: the nodes, in the pipeline's order.
  // `frame_of` (as long as frame_nodes, or empty: each its own) says whose output each frame
  // node gives, as an index into frame_nodes: a sink gives its input's frame. Starts afresh
  // (a monitor may watch one run after another).
  void begin(const std::vector<StageTiming>& stages, const std::vector<std::string>& frame_nodes,
             const std::vector<std::string>& outputs, const std::vector<std::size_t>& frame_of = {});
  // Node `index`'s timing as its owning thread sees it; a sink also gives its latencies.
  // Copied at most every kPublishInterval unless `force` (the thread's last publish).
  void publish_stage(std::size_t index, const StageTiming& timing, const LatencyHistogram* latency = nullptr,
                     bool force = false);
  // The run's totals, from the graph's thread; also the heartbeat.
  // `latency`: the run's own latencies, for a run without sinks (else the sinks give theirs).
  void publish_run(std::int64_t frames, std::int64_t frames_dropped, double first_frame_seconds, bool force = false,
                   const LatencyHistogram* latency = nullptr);
  // A source's reconnect events as they happen (from the source's thread).
  void reconnect_event(std::size_t index, const ReconnectEvent& event);
  // Graph thread: is someone waiting for node `id`'s next frame? (One atomic load.)
  bool frame_wanted(std::size_t frame_node) const;
  // Graph thread: the host frame asked for (its download has completed). The monitor keeps
  // its own copy, so the frame's buffers (a decoder's or a stage's fixed pool) go back at once.
  void deliver_frame(std::size_t frame_node, Frame frame);
  // The run is over (finished, failed or stopped), from the graph's thread: `final_stats` is
  // what the run returns, which snapshot() gives from now on; waiting readers get nullopt.
  void end(const RunStats& final_stats);
  // True between begin() and end().
  bool running() const;

 private:
  bool due(std::size_t slot, bool force);  // under mutex_: throttles publishes
  std::size_t frame_node_index(const std::string& id) const;  // under mutex_; throws

  mutable std::mutex mutex_;
  std::condition_variable frame_arrived_;
  RunStats stats_;
  bool running_ = false;
  bool ended_ = false;
  std::uint64_t generation_ = 0;  // begin() counts runs: a reader of an earlier run leaves
  std::size_t wanted_count_ = 0;  // wanted_'s length (the graph's thread reads it unlocked)
  Clock::time_point began_{};
  std::vector<std::optional<LatencyHistogram>> sink_latency_;  // by node index; merged in snapshot()
  std::vector<Clock::time_point> last_publish_;  // by node index; the run's at the end
  std::vector<int> reconnecting_;                // by node index: 1 while lost
  std::vector<std::string> frame_nodes_;
  std::vector<std::size_t> frame_of_;  // by frame node: the frame node whose output it gives
  // By frame node: readers waiting. Atomic, so that the graph's thread asks without the lock;
  // made in begin(), before the executor's threads start (never resized while they run).
  std::unique_ptr<std::atomic<int>[]> wanted_;
  std::vector<std::optional<Frame>> frames_;  // by frame node: delivered, not yet taken
  std::vector<std::uint64_t> deliveries_;     // by frame node: frames delivered so far
  Clock::time_point heartbeat_{};
};

}  // namespace fp
