// One node of the pipeline as a run sees it: what every kind shares (its place in the graph,
// its timing, the stream it outputs). The kinds are their own types — SourceNode (a decoding
// thread feeding a queue), ProcessNode (a stage enqueued in a frame slot) and SinkNode (an
// encoding thread fed by a queue) — so that the executor asks a node what it is by its type,
// not by its stage's role.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/run_node.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <ctime>

#include "media/video_info.hpp"
#include "pipeline/definition/graph.hpp"
#include "pipeline/engine/run_stats.hpp"

namespace fp {

using RunClock = std::chrono::steady_clock;

inline double ms_since(RunClock::time_point start) {
  return std::chrono::duration<double, std::milli>(RunClock::now() - start).count();
}

// The calling thread's CPU time so far, in milliseconds.
inline double current_thread_cpu_ms() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) * 1e3 + static_cast<double>(now.tv_nsec) / 1e6;
}

class RunNode {
 public:
  RunNode(std::size_t index, const GraphNode& graph) : index_(index), graph_(&graph) {
    timing.id = graph.stage->id;
    timing.type = graph.stage->type;
  }
  virtual ~RunNode() = default;
  RunNode(const RunNode&) = delete;
  RunNode& operator=(const RunNode&) = delete;

  std::size_t index() const { return index_; }  // in the graph (and the stats): the pipeline's order
  const GraphNode& graph() const { return *graph_; }
  const std::string& id() const { return timing.id; }

  // The node whose frames a RunMonitor reader asking for this node's id gets: its own, or
  // for a sink its input's.
  virtual std::size_t shown_node() const { return index_; }
  // A node with a thread of its own (a source; a sink whose output opened) runs it here.
  virtual bool runs_thread() const { return false; }
  virtual void run_thread() {}
  // The end of the run, whatever ended it: flushes a side output or finalizes an output;
  // throws when that fails.
  virtual void finalize() {}
  // The run is over (its threads joined): final counters into the node's timing, and its
  // drops into the run's total.
  virtual void collect_stats(RunStats&) {}
  // Frames its queue dropped so far (sources and sinks).
  virtual std::int64_t frames_dropped() const { return 0; }

  double thread_cpu_ms = 0;  // CPU time of its thread (sources, sinks), read after the join
  StageTiming timing;  // owned by the node's thread (sources, sinks) or the graph's thread
  VideoInfo info;      // the stream it outputs (sources, processing stages)

 private:
  std::size_t index_;
  const GraphNode* graph_;
};

}  // namespace fp
