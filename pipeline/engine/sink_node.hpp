// A sink in a run: the graph's thread hands it each retired frame's host copy through a
// bounded queue, and its own thread writes (encodes) them. An output that fails is left out
// (OutputFailures): its frames are dropped, and the run goes on for the others.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/sink_node.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <atomic>
#include <functional>
#include <memory>

#include "pipeline/engine/bounded_queue.hpp"
#include "pipeline/engine/latency_histogram.hpp"
#include "pipeline/engine/output_failures.hpp"
#include "pipeline/engine/publish_throttle.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "pipeline/engine/run_node.hpp"
#include "pipeline/engine/run_options.hpp"
#include "stages/stage.hpp"

namespace fp {

class SinkNode final : public RunNode {
 public:
  SinkNode(std::size_t index, const GraphNode& graph, std::unique_ptr<Stage> stage, RunMonitor* monitor,
           OutputFailures& failures, const RunHooks& hooks);

  std::size_t input() const { return static_cast<std::size_t>(graph().inputs[0]); }
  std::size_t shown_node() const override { return input(); }

  // Opens the output for its input's stream. A failure (the file, its encoder, a receiver
  // that cannot be reached) leaves this output out and the others go on; a connect that a
  // stop request ended rethrows (the stop the user asked for, not a failed output): asked
  // after the failure, since the stop comes while the connect waits.
  void open(const VideoInfo& input, const std::function<bool()>& stop_requested);
  bool opened() const { return opened_; }
  std::string output_path() { return sink().output_path(); }

  // Its queue (before the threads start). An output that may drop (a live stream's receiver)
  // must not hold back the others: its full queue drops the oldest frame.
  void make_queue(std::size_t depth);
  // The graph's thread: hands it a frame. False when the frame could not be queued (the
  // queue was closed) while the output was not left out.
  bool deliver(Frame frame);
  // End of stream: the thread drains the queue and stops.
  void end_of_stream() { queue_->close(); }
  // The sink's thread, once its output opened: writes frames until the end of the stream.
  bool runs_thread() const override { return opened_; }
  void run_thread() override;

  void finalize() override;
  void collect_stats(RunStats& stats) override;
  std::int64_t frames_dropped() const override { return queue_ ? queue_->dropped() : 0; }
  double last_latency_ms() const { return last_latency_ms_.load(std::memory_order_relaxed); }

 private:
  SinkStage& sink() { return static_cast<SinkStage&>(*stage_); }
  void publish(bool force = false);
  void run_frames();

  std::unique_ptr<Stage> stage_;
  RunMonitor* monitor_;
  OutputFailures& failures_;
  const RunHooks& hooks_;
  std::unique_ptr<BoundedQueue<Frame>> queue_;  // frames to write
  BoundedQueue<Frame>::Overflow overflow_ = BoundedQueue<Frame>::Overflow::Wait;
  LatencyHistogram latency_ms_;                 // per frame written (this sink's thread alone)
  std::atomic<double> last_latency_ms_{-1.0};   // the latest frame's, for the progress line
  PublishThrottle publish_throttle_;            // the sink thread's
  bool opened_ = false;
};

}  // namespace fp
