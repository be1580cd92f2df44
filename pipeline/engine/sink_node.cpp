#include "pipeline/engine/sink_node.hpp"
#include "core/cpu_account.hpp"

#include <spdlog/spdlog.h>

#include <chrono>
#include <utility>

namespace fp {

namespace {
constexpr auto kPollInterval = std::chrono::milliseconds(50);
constexpr std::pair<double, double> kExpectedLatencyMs{0.05, 100'000.0};
}

SinkNode::SinkNode(std::size_t index, const GraphNode& graph, std::unique_ptr<Stage> stage, RunMonitor* monitor,
                   OutputFailures& failures, const RunHooks& hooks)
    : RunNode(index, graph), stage_(std::move(stage)), monitor_(monitor), failures_(failures), hooks_(hooks) {
  // Every latency a run is likely to see, held from the start (1,460 buckets, 12 KB): a
  // frame's latency then never grows the histogram (an allocation) in the steady state. The
  // run's stats keep only the buckets that were used (collect_stats: merge).
  latency_ms_.expect(kExpectedLatencyMs.first, kExpectedLatencyMs.second);
}

void SinkNode::open(const VideoInfo& input, const std::function<bool()>& stop_requested) {
  try {
    sink().open(input);
  } catch (...) {
    if (stop_requested()) throw;
    // The path was checked, so this is the file failing (a full disk refusing the header),
    // its encoder, or a receiver that cannot be reached: the other outputs go on without it.
    failures_.failed(index(), timing.id, std::current_exception());
    return;
  }
  opened_ = true;
  timing.encoder = sink().encoder_name();
  timing.output = sink().output_path();
  spdlog::info("{}: {} -> {}", timing.id, timing.encoder, timing.output);
}

void SinkNode::make_queue(std::size_t depth) {
  queue_ = std::make_unique<BoundedQueue<Frame>>(depth);
  const bool drops = sink().drops_when_behind();
  timing.drop_policy = drops ? "oldest" : "never";
  overflow_ = drops ? BoundedQueue<Frame>::Overflow::DropOldest : BoundedQueue<Frame>::Overflow::Wait;
}

bool SinkNode::deliver(Frame frame) {
  if (failures_.left_out(index())) return true;
  return queue_->push(std::move(frame), overflow_) || failures_.left_out(index());
}

void SinkNode::run_thread() {
  const double cpu_at_start = current_thread_cpu_ms();
  run_frames();
  thread_cpu_ms = current_thread_cpu_ms() - cpu_at_start;
}

void SinkNode::run_frames() {
  try {
    Frame frame;
    for (;;) {
      const auto status = queue_->pop(frame, kPollInterval);
      if (status == BoundedQueue<Frame>::PopStatus::Closed) break;
      if (status == BoundedQueue<Frame>::PopStatus::Timeout) continue;
      if (hooks_.before_write) hooks_.before_write(timing.id);
      const auto t0 = RunClock::now();
      sink().write(frame);
      timing.total_ms += ms_since(t0);
      ++timing.frames;
      const double latency = std::chrono::duration<double, std::milli>(RunClock::now() - frame.arrival).count();
      latency_ms_.add(latency);
      last_latency_ms_.store(latency, std::memory_order_relaxed);
      frame = Frame{};  // return the buffers to their pools now, not at the next frame
      charge_thread_cpu();
      publish();
    }
    publish(true);
  } catch (...) {
    // This output is left out (its frames dropped); the others go on.
    failures_.failed(index(), timing.id, std::current_exception());
    queue_->close();
    queue_->clear();
    try {
      sink().close();  // lets go of the file; its error would only repeat the first
    } catch (...) {
    }
  }
}

// The sink thread's share: its timing, drops and latencies.
void SinkNode::publish(bool force) {
  if (monitor_ == nullptr || !(publish_throttle_.due() || force)) return;
  StageTiming published = timing;
  published.frames_dropped = queue_->dropped();
  monitor_->publish_stage(index(), published, &latency_ms_, true);
}

void SinkNode::finalize() {
  if (opened_ && !failures_.left_out(index())) sink().close();
}

void SinkNode::collect_stats(RunStats& stats) {
  if (queue_) {
    timing.frames_dropped = queue_->dropped();
    stats.frames_dropped += timing.frames_dropped;
    timing.reconnect = sink().reconnect_stats();
  }
  stats.latency_ms.merge(latency_ms_);
}

}  // namespace fp
