#include "pipeline/engine/source_node.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <string>
#include <utility>

#include "core/cpu_account.hpp"
#include "media/media_error.hpp"
#include "pipeline/engine/pacer.hpp"

namespace fp {

SourceNode::SourceNode(std::size_t index, const GraphNode& graph, std::unique_ptr<Stage> stage,
                       const RunOptions& options, const std::atomic<bool>& stopping)
    : ProducerNode(index, graph), stage_(std::move(stage)), options_(options), stopping_(stopping),
      monitor_(options.monitor) {}

void SourceNode::prepare(std::span<const VideoInfo>) {
  info = source().open();
  timing.decoder = source().decoder_name();
  // NVDEC's NV12 chroma is split into I420 for a stage that reads chroma
  // (CudaFrameSlots::to_device); otherwise the sinks get it as the source gives it.
  if (uploads_chroma_) info.chroma_layout = PlaneLayout::I420;
  // Only now is a file's or camera's size known; what its URI said was checked when planned.
  // (Its rate is not checked here: a container's nominal rate is often a guess, and an
  // unpaced file is read as fast as it decodes whatever it says.)
  if (const std::string problem = input_size_problem(info.width, info.height, options_.input_limits); !problem.empty())
    throw MediaError(fmt::format("stage '{}': {}", timing.id, problem));
  if (options_.input_opened) options_.input_opened(info.width, info.height);
  spdlog::info("{}: {}x{} at {:.3f} fps, {} frames, decoder {}", timing.id, info.width, info.height,
               info.frame_rate.value(), info.frame_count < 0 ? std::string("unknown") : std::to_string(info.frame_count),
               timing.decoder);
}

void SourceNode::make_queue(std::size_t depth, DropPolicy drop) {
  using Overflow = BoundedQueue<Frame>::Overflow;
  queue_ = std::make_unique<BoundedQueue<Frame>>(depth);
  const DropPolicy policy = resolve_drop_policy(drop, info.live);
  timing.drop_policy = drop_policy_name(policy);
  overflow_ = policy == DropPolicy::Oldest   ? Overflow::DropOldest
              : policy == DropPolicy::Newest ? Overflow::DropNewest
                                             : Overflow::Wait;
  // What a live input buffered before its frames could flow (opening it, the rest of the
  // set-up) would come out as a burst of stale frames that the queue drops for being
  // behind: a run that keeps current starts current instead.
  if (overflow_ != Overflow::Wait) source().start_at_live_edge();
}

// Says (at most every few seconds) that frames are being dropped, with the count so far.
void SourceNode::warn_of_drops() {
  const std::int64_t dropped = queue_->dropped();
  if (dropped == warned_drops_ || RunClock::now() - last_drop_warning_ < std::chrono::seconds(5)) return;
  spdlog::warn("{}: the graph is behind the input; {} frames dropped so far (drop: {})", timing.id, dropped,
               timing.drop_policy);
  last_drop_warning_ = RunClock::now();
  warned_drops_ = dropped;
}

void SourceNode::run_thread() {
  const double cpu_at_start = current_thread_cpu_ms();
  const RunOptions& options = options_;
  const std::atomic<bool>& stopping = stopping_;
  try {
    Pacer pacer(info);
    for (std::int64_t count = 0; !stopping; ++count) {
      if (options.max_frames >= 0 && count >= options.max_frames) break;
      const auto t0 = RunClock::now();
      auto frame = source().read();
      timing.total_ms += ms_since(t0);
      charge_thread_cpu();
      if (!frame) break;
      ++timing.frames;
      frame->sequence = count;
      // A paced frame arrives when it is due, as from a camera; any other when it is read
      // (live sources stamp it themselves, when its packet came in).
      if (options.realtime) {
        if (!pacer.wait_until_due(*frame, stopping)) break;
        frame->arrival = pacer.last_due();
      } else if (frame->arrival == RunClock::time_point{}) {
        frame->arrival = RunClock::now();
      }
      if (!queue_->push(std::move(*frame), overflow_)) break;
      if (overflow_ != BoundedQueue<Frame>::Overflow::Wait) warn_of_drops();
      publish();
    }
  } catch (...) {
    // The frames decoded before the failure (damaged input, a size change) are still
    // queued: they go through the graph first, then the error ends the run.
    error_ = std::current_exception();
  }
  try {
    publish(true);
  } catch (...) {  // a statistic that cannot be read is not the run's failure
  }
  queue_->close();
  thread_cpu_ms = current_thread_cpu_ms() - cpu_at_start;
}

// What the source thread counts, and what only it may ask its source. Not enqueue_ms, which
// the graph's thread adds to (the final stats have it).
void SourceNode::publish(bool force) {
  if (monitor_ == nullptr || !(publish_throttle_.due() || force)) return;
  StageTiming published;
  published.id = timing.id;
  published.type = timing.type;
  published.decoder = timing.decoder;
  published.drop_policy = timing.drop_policy;
  published.frames = timing.frames;
  published.total_ms = timing.total_ms;
  published.decode_errors = source().decode_errors();
  published.frames_skipped_to_live = source().frames_skipped_to_live();
  published.frames_dropped = queue_->dropped();
  published.reconnect = source().reconnect_stats();
  monitor_->publish_stage(index(), published, nullptr, true);
}

void SourceNode::stop() {
  source().interrupt();
  if (!queue_) return;
  queue_->close();
  queue_->clear();
}

void SourceNode::enqueue(SlotEnqueue& slot) {
  const auto i = index();
  const Frame& delivered = slot.work.sources[i];
  if (slot.hooks.before_upload) slot.hooks.before_upload(slot.context());
  const auto t0 = RunClock::now();
  slot.work.frames[i] = slot.slots.to_device(delivered, slot.slot, uploads_chroma_);
  timing.enqueue_ms += ms_since(t0);
  slot.work.arrival = delivered.arrival;
  // A decoded host frame is shown as it is; an NVDEC frame as the stages see it.
  slot.show_if_wanted(i);
}

void SourceNode::collect_stats(RunStats& stats) {
  // NVDEC may turn the stream down at its first picture, after the open (auto goes on in
  // software): the summary and stats name the decoder that did the work.
  if (auto decoder = source().decoder_name(); decoder != timing.decoder) {
    spdlog::warn("{}: decoder {}", timing.id, decoder);
    timing.decoder = std::move(decoder);
  }
  timing.decode_errors = source().decode_errors();
  timing.frames_skipped_to_live = source().frames_skipped_to_live();
  if (queue_) timing.frames_dropped = queue_->dropped();
  stats.frames_dropped += timing.frames_dropped;
  timing.reconnect = source().reconnect_stats();
}

}  // namespace fp
