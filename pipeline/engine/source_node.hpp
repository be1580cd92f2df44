// A source in a run: its thread reads (decodes) frames into a bounded queue, which the
// graph's thread takes one frame a step from and brings to the device in a frame slot.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/source_node.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <atomic>
#include <chrono>
#include <exception>
#include <memory>

#include "pipeline/definition/drop_policy.hpp"
#include "pipeline/engine/bounded_queue.hpp"
#include "pipeline/engine/producer_node.hpp"
#include "pipeline/engine/publish_throttle.hpp"
#include "stages/stage.hpp"

namespace fp {

class SourceNode final : public ProducerNode {
 public:
  // Its thread reads until the end, `options.max_frames`, or `stopping`.
  SourceNode(std::size_t index, const GraphNode& graph, std::unique_ptr<Stage> stage, const RunOptions& options,
             const std::atomic<bool>& stopping);

  void prepare(std::span<const VideoInfo> inputs) override;  // opens the input
  // Its queue (before the threads start). A live input keeps coming whether or not the graph
  // keeps up: unless `drop` says otherwise, its queue drops the oldest frame rather than
  // letting frames (and memory, and latency) pile up upstream. Files and testsrc wait.
  void make_queue(std::size_t depth, DropPolicy drop);
  // The source's thread. A read error is kept (error()) so that the frames decoded before
  // it are processed first.
  bool runs_thread() const override { return true; }
  void run_thread() override;
  // The graph's thread: its next frame, as BoundedQueue::pop.
  BoundedQueue<Frame>::PopStatus pop(Frame& frame, std::chrono::milliseconds timeout) {
    return queue_->pop(frame, timeout);
  }
  // Ends its reading: interrupts a blocking read and drops what is queued.
  void stop();
  void enqueue(SlotEnqueue& slot) override;  // the upload (on CUDA) of the frame it delivered
  // Whether its frames' chroma goes to the device (HostCopies::uploads_chroma): a stage reads it.
  void set_uploads_chroma(bool uploads) { uploads_chroma_ = uploads; }

  const std::exception_ptr& error() const { return error_; }
  void collect_stats(RunStats& stats) override;
  std::int64_t frames_dropped() const override { return queue_ ? queue_->dropped() : 0; }

 private:
  SourceStage& source() { return static_cast<SourceStage&>(*stage_); }
  void publish(bool force = false);
  void warn_of_drops();

  std::unique_ptr<Stage> stage_;
  const RunOptions& options_;
  const std::atomic<bool>& stopping_;
  RunMonitor* monitor_;
  std::unique_ptr<BoundedQueue<Frame>> queue_;  // decoded frames
  BoundedQueue<Frame>::Overflow overflow_ = BoundedQueue<Frame>::Overflow::Wait;  // what a full queue does
  bool uploads_chroma_ = true;
  std::exception_ptr error_;  // raised once the frames before it are processed
  PublishThrottle publish_throttle_;  // the source thread's
  RunClock::time_point last_drop_warning_{};
  std::int64_t warned_drops_ = 0;
};

}  // namespace fp
