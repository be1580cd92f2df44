#include "pipeline/executor.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "media/output_target.hpp"
#include "media/stream_uri.hpp"
#include "pipeline/bounded_queue.hpp"
#include "pipeline/frame_slots.hpp"
#include "pipeline/graph.hpp"
#include "pipeline/output_paths.hpp"
#include "pipeline/pacer.hpp"
#include "pipeline/progress.hpp"
#include "pipeline/run_monitor.hpp"

namespace fp {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kPollInterval = std::chrono::milliseconds(50);

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

std::string message_of(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "unknown failure";
  }
}

struct Node {
  std::size_t index = 0;  // in the graph (and the stats), the pipeline's order
  const GraphNode* graph = nullptr;
  std::unique_ptr<Stage> stage;
  VideoInfo info;
  StageTiming timing;
  std::unique_ptr<BoundedQueue<Frame>> queue;  // sources: decoded frames; sinks: frames to encode
  BoundedQueue<Frame>::Overflow overflow = BoundedQueue<Frame>::Overflow::Wait;  // what a full queue does
  LatencyHistogram latency_ms;                 // sinks: per frame written (this sink's thread alone)
  // sinks: the latest frame's latency, for the progress line (on the heap: nodes are moved)
  std::unique_ptr<std::atomic<double>> last_latency_ms = std::make_unique<std::atomic<double>>(-1.0);
  bool opened = false;                         // sinks: open() succeeded
  bool failed = false;                         // sinks, side outputs: failed and left out (error_mutex_)
  std::exception_ptr source_error;             // sources: raised once the frames before it are processed

  SourceStage& source() { return static_cast<SourceStage&>(*stage); }
  ProcessStage& process() { return static_cast<ProcessStage&>(*stage); }
  SinkStage& sink() { return static_cast<SinkStage&>(*stage); }
  StageRole role() const { return graph->spec->role; }
};

// When a thread next publishes to the RunMonitor: each thread keeps its own, so that a frame
// costs a clock read, and a copy of its counters only every kPublishInterval.
class PublishThrottle {
 public:
  bool due() {
    const auto now = Clock::now();
    if (now < next_) return false;
    next_ = now + RunMonitor::kPublishInterval;
    return true;
  }

 private:
  Clock::time_point next_{};
};

// The graph's work for the frame in one slot. Every frame that work reads or writes is
// owned here until retire() has waited for the slot: the sources' host frames (on CUDA their
// upload may still be pending: released early, a decoder would reuse the buffer and the
// device would copy a mix of two frames), every node's output (device buffers the kernels
// use) and the sinks' host copies (downloads in flight).
struct SlotWork {
  bool pending = false;
  std::vector<Frame> sources;                        // the frames the sources delivered, by node index
  std::vector<Frame> frames;                         // every node's output, by node index
  std::vector<std::pair<int, Frame>> deliveries;     // (sink node, host frame)
  std::vector<std::pair<int, Frame>> shown;          // (node, host frame) a RunMonitor reader waits for
  std::chrono::steady_clock::time_point arrival{};   // the frame's, for latency without sinks

  void release() {
    sources.clear();
    frames.clear();
    deliveries.clear();
    shown.clear();
  }
};

class Run {
 public:
  Run(const PipelineDefinition& definition, const Device& device, const RunOptions& options)
      : graph_(definition), options_(options) {
    stats_.pipeline = definition.file;
    stats_.device = device.name();
    slots_ = make_frame_slots(device, device.kind == DeviceKind::Cuda ? options.slots : 1,
                              static_cast<int>(graph_.nodes().size()));
    slot_work_.resize(static_cast<std::size_t>(slots_->count()));
    for (const auto& g : graph_.nodes()) {
      Node node;
      node.index = nodes_.size();
      node.graph = &g;
      StageContext context{g.stage->id, device, slots_->count(), static_cast<int>(options.queue_depth), options.stop};
      // A source's reconnects show as the stream reconnecting; an output's (a receiver gone)
      // do not: the stream itself goes on.
      if (options.monitor != nullptr && g.spec->role == StageRole::Source)
        context.reconnect_observer = [monitor = options.monitor, index = node.index](const ReconnectEvent& event) {
          monitor->reconnect_event(index, event);
        };
      node.stage = g.spec->create(g.stage->params, context);
      node.timing.id = g.stage->id;
      node.timing.type = g.stage->type;
      for (const auto& param : g.spec->params) {
        if (param.type != ParamType::Path) continue;
        const auto& path = g.stage->params.text(param.name);
        if (!path.empty() && path != "null") stats_.outputs.push_back(mask_credentials(path));
      }
      nodes_.push_back(std::move(node));
    }
  }

  // Whatever path led here, the device finishes with every buffer before any is released.
  ~Run() { slots_->wait_idle(); }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  RunStats execute() {
    started_ = Clock::now();
    const auto start = started_;
    // Whatever way the run ends, its watchers see the stats it returns (or leaves in
    // stats_on_failure), and readers waiting for a frame are let go.
    struct EndMonitor {
      Run& run;
      ~EndMonitor() {
        if (run.monitor_ != nullptr) run.monitor_->end(run.stats_);
      }
    } end_monitor{*this};
    begin_monitor();
    try {
      set_up();
      publish_graph(true);  // the inputs are open: a heartbeat again
    } catch (...) {
      finalize();
      // An open that gave up because a stop was requested (a silent server, say) is the
      // interruption the user asked for, not a failure.
      if (!stop_requested()) throw;
      stats_.interrupted = true;
      forget_unopened_outputs();
      stats_.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
      collect_stats();
      return stats_;
    }
    start_threads();
    if (!error_pending()) process_frames();
    stop_sources();
    for (auto& n : nodes_)
      if (n.role() == StageRole::Sink) n.queue->close();  // end of stream: sinks drain and stop
    for (auto& t : threads_) t.join();
    for (auto& n : nodes_)
      if (n.source_error) fail(n.source_error);
    finalize();
    stats_.wall_seconds = std::chrono::duration<double>(Clock::now() - start).count();
    collect_stats();  // also for a run that failed: what it did before (stats())
    throw_errors();
    return stats_;
  }
  const RunStats& stats() const { return stats_; }

 private:
  // Tells the monitor the nodes before any thread starts. Every node's id can be asked for
  // frames; a sink's gives its input's.
  void begin_monitor() {
    if (monitor_ == nullptr) return;
    std::vector<StageTiming> stages;
    std::vector<std::string> ids;
    std::vector<std::size_t> frame_of;
    for (const auto& n : nodes_) {
      stages.push_back(n.timing);
      ids.push_back(n.timing.id);
      frame_of.push_back(n.role() == StageRole::Sink ? static_cast<std::size_t>(n.graph->inputs[0]) : n.index);
    }
    monitor_->begin(stages, ids, stats_.outputs, frame_of);
    publish_graph(true);
  }

  // The graph thread's share: the processing stages, the run's totals and the heartbeat.
  void publish_graph(bool force = false) {
    if (monitor_ == nullptr || !(graph_publish_.due() || force)) return;
    for (const auto& n : nodes_)
      if (n.role() == StageRole::Process) monitor_->publish_stage(n.index, n.timing, nullptr, true);
    monitor_->publish_run(stats_.frames, frames_dropped(), stats_.first_frame_seconds, true,
                          has_sinks() ? nullptr : &stats_.latency_ms);
  }

  // A source thread's share: what it counts, and what only it may ask its source. Not
  // enqueue_ms, which the graph's thread adds to (the final stats have it).
  void publish_source(Node& n, PublishThrottle& throttle, bool force = false) {
    if (monitor_ == nullptr || !(throttle.due() || force)) return;
    StageTiming timing;
    timing.id = n.timing.id;
    timing.type = n.timing.type;
    timing.decoder = n.timing.decoder;
    timing.drop_policy = n.timing.drop_policy;
    timing.frames = n.timing.frames;
    timing.total_ms = n.timing.total_ms;
    timing.decode_errors = n.source().decode_errors();
    timing.frames_skipped_to_live = n.source().frames_skipped_to_live();
    timing.frames_dropped = n.queue->dropped();
    timing.reconnect = n.source().reconnect_stats();
    monitor_->publish_stage(n.index, timing, nullptr, true);
  }

  // A sink thread's share: its timing, drops and latencies.
  void publish_sink(Node& n, PublishThrottle& throttle, bool force = false) {
    if (monitor_ == nullptr || !(throttle.due() || force)) return;
    StageTiming timing = n.timing;
    timing.frames_dropped = n.queue->dropped();
    monitor_->publish_stage(n.index, timing, &n.latency_ms, true);
  }

  // Opens sources, prepares the processing stages in graph order, then opens the sinks, so
  // a source or stage that fails creates no output file.
  void set_up() {
    check_output_paths();
    for (int i : graph_.topological_order()) {
      Node& n = nodes_[i];
      if (n.role() == StageRole::Source) {
        n.info = n.source().open();
        n.timing.decoder = n.source().decoder_name();
        spdlog::info("{}: {}x{} at {:.3f} fps, {} frames, decoder {}", n.timing.id, n.info.width, n.info.height,
                     n.info.frame_rate.value(),
                     n.info.frame_count < 0 ? std::string("unknown") : std::to_string(n.info.frame_count),
                     n.timing.decoder);
      } else if (n.role() == StageRole::Process) {
        n.info = n.process().prepare(input_infos(n));
      }
    }
    for (auto& n : nodes_) {
      if (n.role() != StageRole::Sink) continue;
      try {
        n.sink().open(nodes_[n.graph->inputs[0]].info);
      } catch (...) {
        // A connect that Ctrl-C ended is the stop the user asked for, not a failed output.
        if (stop_requested()) throw;
        // The path was checked, so this is the file failing (a full disk refusing the
        // header), its encoder, or a receiver that cannot be reached: the other outputs go
        // on without it.
        output_failed(n, std::current_exception());
        continue;
      }
      n.opened = true;
      n.timing.encoder = n.sink().encoder_name();
      n.timing.output = n.sink().output_path();
      spdlog::info("{}: {} -> {}", n.timing.id, n.timing.encoder, n.timing.output);
    }
  }

  // Every output file can be created: a missing or read-only directory fails the run here,
  // before any input is opened or any output created. A network output has no file; its
  // receiver is found when it is opened.
  void check_output_paths() const {
    for (const auto& n : nodes_)
      for (const auto& param : n.graph->spec->params) {
        if (param.type != ParamType::Path) continue;
        const auto& path = n.graph->stage->params.text(param.name);
        if (path.empty() || path == "null" || is_network_output(path)) continue;
        if (const auto reason = cannot_create_reason(path); !reason.empty())
          throw std::runtime_error(fmt::format("{}: {}: cannot create: {}", n.timing.id, path, reason));
      }
  }

  std::vector<VideoInfo> input_infos(const Node& n) const {
    std::vector<VideoInfo> infos;
    for (int i : n.graph->inputs) infos.push_back(nodes_[i].info);
    return infos;
  }

  // Every queue exists before any thread starts. A thread that cannot start (std::thread
  // throws std::system_error) fails the run like any other error: the threads already
  // running are stopped and joined, and the outputs finalized.
  void start_threads() {
    for (auto& n : nodes_) {
      if (n.role() == StageRole::Process) continue;
      n.queue = std::make_unique<BoundedQueue<Frame>>(options_.queue_depth);
      if (n.role() == StageRole::Source) set_drop_policy(n);
      if (n.role() == StageRole::Sink) set_sink_drop_policy(n);
    }
    for (auto& n : nodes_) {
      if (n.role() == StageRole::Process || (n.role() == StageRole::Sink && !n.opened)) continue;
      try {
        if (options_.hooks.before_thread_start) options_.hooks.before_thread_start(n.timing.id);
        if (n.role() == StageRole::Source)
          threads_.emplace_back([this, &n] { source_loop(n); });
        else
          threads_.emplace_back([this, &n] { sink_loop(n); });
      } catch (const std::exception& e) {
        fail(std::make_exception_ptr(
            std::runtime_error(fmt::format("{}: cannot start its thread: {}", n.timing.id, e.what()))));
        return;
      }
    }
  }

  // A live input keeps coming whether or not the graph keeps up: unless told otherwise, its
  // queue drops the oldest frame rather than letting frames (and memory, and latency) pile up
  // upstream. Files and testsrc wait: nothing is lost.
  void set_drop_policy(Node& n) {
    using Overflow = BoundedQueue<Frame>::Overflow;
    const DropPolicy policy = resolve_drop_policy(options_.drop, n.info.live);
    n.timing.drop_policy = drop_policy_name(policy);
    n.overflow = policy == DropPolicy::Oldest   ? Overflow::DropOldest
                 : policy == DropPolicy::Newest ? Overflow::DropNewest
                                                : Overflow::Wait;
    // What a live input buffered before its frames could flow (opening it, the rest of the
    // set-up) would come out as a burst of stale frames that the queue drops for being
    // behind: a run that keeps current starts current instead.
    if (n.overflow != Overflow::Wait) n.source().start_at_live_edge();
  }

  // An output that may drop (a live stream's receiver) must not hold back the others.
  void set_sink_drop_policy(Node& n) {
    const bool drops = n.sink().drops_when_behind();
    n.timing.drop_policy = drops ? "oldest" : "never";
    n.overflow = drops ? BoundedQueue<Frame>::Overflow::DropOldest : BoundedQueue<Frame>::Overflow::Wait;
  }

  // Says (at most every few seconds) that frames are being dropped, with the count so far.
  void warn_of_drops(Node& n, Clock::time_point& last_warning, std::int64_t& warned_count) {
    const std::int64_t dropped = n.queue->dropped();
    if (dropped == warned_count || Clock::now() - last_warning < std::chrono::seconds(5)) return;
    spdlog::warn("{}: the graph is behind the input; {} frames dropped so far (drop: {})", n.timing.id, dropped,
                 n.timing.drop_policy);
    last_warning = Clock::now();
    warned_count = dropped;
  }

  void source_loop(Node& n) {
    Clock::time_point last_drop_warning{};
    std::int64_t warned_drops = 0;
    PublishThrottle publish;
    try {
      Pacer pacer(n.info);
      for (std::int64_t count = 0; !stopping_; ++count) {
        if (options_.max_frames >= 0 && count >= options_.max_frames) break;
        const auto t0 = Clock::now();
        auto frame = n.source().read();
        n.timing.total_ms += ms_since(t0);
        if (!frame) break;
        ++n.timing.frames;
        frame->sequence = count;
        // A paced frame arrives when it is due, as from a camera; any other when it is read
        // (live sources stamp it themselves, when its packet came in).
        if (options_.realtime) {
          if (!pacer.wait_until_due(*frame, stopping_)) break;
          frame->arrival = pacer.last_due();
        } else if (frame->arrival == Clock::time_point{}) {
          frame->arrival = Clock::now();
        }
        if (!n.queue->push(std::move(*frame), n.overflow)) break;
        if (n.overflow != BoundedQueue<Frame>::Overflow::Wait) warn_of_drops(n, last_drop_warning, warned_drops);
        publish_source(n, publish);
      }
    } catch (...) {
      // The frames decoded before the failure (damaged input, a size change) are still
      // queued: they go through the graph first, then the error ends the run.
      n.source_error = std::current_exception();
    }
    try {
      publish_source(n, publish, true);
    } catch (...) {  // a statistic that cannot be read is not the run's failure
    }
    n.queue->close();
  }

  void sink_loop(Node& n) {
    PublishThrottle publish;
    try {
      Frame frame;
      for (;;) {
        const auto status = n.queue->pop(frame, kPollInterval);
        if (status == BoundedQueue<Frame>::PopStatus::Closed) break;
        if (status == BoundedQueue<Frame>::PopStatus::Timeout) continue;
        const auto t0 = Clock::now();
        n.sink().write(frame);
        n.timing.total_ms += ms_since(t0);
        ++n.timing.frames;
        const double latency = std::chrono::duration<double, std::milli>(Clock::now() - frame.arrival).count();
        n.latency_ms.add(latency);
        n.last_latency_ms->store(latency, std::memory_order_relaxed);
        frame = Frame{};  // return the buffers to their pools now, not at the next frame
        publish_sink(n, publish);
      }
      publish_sink(n, publish, true);
    } catch (...) {
      // This output is left out (its frames dropped); the others go on.
      output_failed(n, std::current_exception());
      n.queue->close();
      n.queue->clear();
      try {
        n.sink().close();  // lets go of the file; its error would only repeat the first
      } catch (...) {
      }
    }
  }

  // Takes one frame from every source, enqueues the graph on them in the next slot and
  // retires the slot's previous frame (its completions run, its outputs go to the sinks),
  // until a source ends, an error occurs, or a stop is requested. Frames reach the sinks in
  // order, and every frame already submitted is retired even after an error.
  void process_frames() {
    ProgressLine progress(options_.progress, expected_frames());
    std::vector<Frame> sources(nodes_.size());
    std::int64_t& submitted = submitted_;
    const int slot_count = slots_->count();
    try {
      while (next_inputs(sources, progress)) {
        const int slot = static_cast<int>(submitted % slot_count);
        retire(slot, progress);
        const auto t0 = Clock::now();
        enqueue(slot, std::exchange(sources, std::vector<Frame>(nodes_.size())));
        stats_.enqueue_ms += ms_since(t0);
        ++submitted;
      }
    } catch (...) {
      fail(std::current_exception());
    }
    for (int i = 0; i < slot_count; ++i) {
      try {
        retire(static_cast<int>((submitted + i) % slot_count), progress);
      } catch (...) {
        fail(std::current_exception());
      }
    }
    progress.finish();
  }

  // Enqueues the graph on the sources' frames in `slot`, which takes ownership of them.
  void enqueue(int slot, std::vector<Frame> sources) {
    auto& work = slot_work_[static_cast<std::size_t>(slot)];
    auto& context = slots_->context(slot);
    work.release();
    work.sources = std::move(sources);
    work.frames.assign(nodes_.size(), Frame{});
    const auto& sources_of = work.sources;
    try {
      for (int i : graph_.topological_order()) {
        Node& n = nodes_[i];
        if (n.role() == StageRole::Source) {
          if (options_.hooks.before_upload) options_.hooks.before_upload(context);
          const auto t0 = Clock::now();
          work.frames[i] = slots_->to_device(sources_of[i], slot);
          n.timing.enqueue_ms += ms_since(t0);
          work.arrival = sources_of[i].arrival;
          // A decoded host frame is shown as it is; an NVDEC frame as the stages see it.
          if (monitor_ != nullptr && monitor_->frame_wanted(n.index))
            show(work, i, sources_of[i].location == MemoryLocation::Host ? sources_of[i] : work.frames[i], slot);
        } else if (n.role() == StageRole::Process) {
          std::vector<Frame> inputs;
          for (int in : n.graph->inputs) inputs.push_back(work.frames[in]);
          const auto t0 = Clock::now();
          slots_->begin_stage(slot, i);
          work.frames[i] = n.process().process(inputs, context);
          slots_->end_stage(slot, i);
          n.timing.enqueue_ms += ms_since(t0);
          ++n.timing.frames;
          if (monitor_ != nullptr && monitor_->frame_wanted(n.index)) show(work, i, work.frames[i], slot);
        } else {
          // A sink fed straight by a source takes the decoded host frame: no round trip. (A
          // frame NVDEC decoded is on the device already, and its I420 form is the node's.)
          const int in = n.graph->inputs[0];
          const bool host_source =
              nodes_[in].role() == StageRole::Source && sources_of[in].location == MemoryLocation::Host;
          const Frame& frame = host_source ? sources_of[in] : work.frames[in];
          work.deliveries.emplace_back(i, slots_->to_host(frame, slot));
        }
      }
    } catch (...) {
      // Let whatever was enqueued finish before the buffers go back to their pools.
      context.drop_completions();
      slots_->submit(slot);
      std::vector<double> ignored(nodes_.size());
      try {
        slots_->wait(slot, ignored);
      } catch (...) {
      }
      work.release();
      throw;
    }
    slots_->submit(slot);
    work.pending = true;
  }

  // A reader of the monitor waits for node `node`'s next frame: its host copy joins the
  // slot's work like a sink's (on CUDA a download on the slot's stream, read only after the
  // slot's wait in retire()). The stream never waits for the reader.
  void show(SlotWork& work, int node, const Frame& frame, int slot) {
    work.shown.emplace_back(node, slots_->to_host(frame, slot));
  }

  // Waits for the slot's frame, runs its completions and hands its outputs to the sinks.
  void retire(int slot, ProgressLine& progress) {
    auto& work = slot_work_[static_cast<std::size_t>(slot)];
    if (!work.pending) return;
    work.pending = false;
    std::vector<double> stage_ms(nodes_.size());
    const auto t0 = Clock::now();
    slots_->wait(slot, stage_ms);
    stats_.wait_ms += ms_since(t0);
    // Only the processing stages' times come from the slots; sources and sinks time
    // themselves on their own threads, which own their timing.
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].role() == StageRole::Process) nodes_[i].timing.total_ms += stage_ms[i];
    work.sources.clear();  // the device is done with them: back to their pools
    work.frames.clear();
    slots_->context(slot).run_completions();
    // The downloads are complete (the slot's wait above): the monitor copies the frames.
    for (auto& [node, frame] : work.shown) monitor_->deliver_frame(static_cast<std::size_t>(node), std::move(frame));
    work.shown.clear();
    for (auto& [sink, frame] : work.deliveries)
      if (!output_left_out(nodes_[sink]) && !nodes_[sink].queue->push(std::move(frame), nodes_[sink].overflow) &&
          !output_left_out(nodes_[sink]))
        throw_pending_error();
    work.deliveries.clear();
    if (++stats_.frames == 1) stats_.first_frame_seconds = ms_since(started_) / 1000.0;
    if (!has_sinks())
      stats_.latency_ms.add(std::chrono::duration<double, std::milli>(Clock::now() - work.arrival).count());
    progress.update(stats_.frames, frames_dropped(), latest_latency_ms(work.arrival));
    publish_graph();
  }

  // Retires the oldest slot still in flight, if any (slots retire in the order they were
  // submitted). True when there was one.
  bool retire_oldest(ProgressLine& progress) {
    const int slot_count = slots_->count();
    for (std::int64_t n = std::max<std::int64_t>(0, submitted_ - slot_count); n < submitted_; ++n) {
      const int slot = static_cast<int>(n % slot_count);
      if (!slot_work_[static_cast<std::size_t>(slot)].pending) continue;
      retire(slot, progress);
      return true;
    }
    return false;
  }

  // Fills the sources' slots of `outputs`; false at the end of any source or on a stop.
  // While a source has no frame ready, the frames in flight are finished and handed to the
  // sinks: on a live input the next frame may be a frame time away, and a frame's output
  // must not wait for it (with K slots that would add K frame times of latency).
  bool next_inputs(std::vector<Frame>& outputs, ProgressLine& progress) {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      Node& n = nodes_[i];
      if (n.role() != StageRole::Source) continue;
      for (;;) {
        publish_graph();  // also the heartbeat while the input is idle (every poll at most)
        note_side_output_failures();
        if (error_pending() || every_output_failed()) return false;
        if (stop_requested()) {
          stats_.interrupted = true;
          return false;
        }
        auto status = n.queue->pop(outputs[i], std::chrono::milliseconds(0));
        if (status == BoundedQueue<Frame>::PopStatus::Timeout && !retire_oldest(progress))
          status = n.queue->pop(outputs[i], kPollInterval);
        if (status == BoundedQueue<Frame>::PopStatus::Item) break;
        if (status == BoundedQueue<Frame>::PopStatus::Closed) {
          // A source that was waiting (a reconnect backoff) ends its stream when the stop
          // request reaches it, which may be before this thread sees the flag.
          if (stop_requested()) stats_.interrupted = true;
          return false;
        }
      }
    }
    return true;
  }

  void stop_sources() {
    stopping_ = true;
    for (auto& n : nodes_) {
      if (n.role() != StageRole::Source) continue;
      n.source().interrupt();
      n.queue->close();
      n.queue->clear();
    }
  }

  // Flushes side outputs and finalizes every opened sink (a full disk often shows only in
  // this last flush); each failure is kept.
  void finalize() {
    finalizing_ = true;
    for (auto& n : nodes_) {
      try {
        if (n.role() == StageRole::Process) n.process().finish();
        if (n.role() == StageRole::Sink && n.opened && !output_left_out(n)) n.sink().close();
      } catch (...) {
        output_failed(n, std::current_exception());
      }
    }
  }

  // An output that cannot be written (a full disk, /dev/full) is left out: its error is kept
  // for the end of the run, and the run goes on for the others, which get every frame.
  void output_failed(Node& n, const std::exception_ptr& error) {
    const std::string message = fmt::format("{}: {}", n.timing.id, message_of(error));
    {
      std::lock_guard lock(error_mutex_);
      n.failed = true;
      output_errors_.push_back(message);
    }
    // With no output left the run ends, and its error says this once.
    if (!finalizing_ && n.role() == StageRole::Sink && !every_output_failed())
      spdlog::error("{}; the other outputs go on", message);
  }
  bool output_left_out(const Node& n) {
    std::lock_guard lock(error_mutex_);
    return n.failed;
  }
  // A side output (a histogram's rows) fails inside its stage, on the graph's thread, the
  // only one that may ask the stage; the failure is copied under the lock into its node,
  // where a sink thread (every_output_failed after its own output failed) reads it.
  void note_side_output_failures() {
    for (auto& n : nodes_) {
      if (n.role() != StageRole::Process || n.failed || !n.process().side_output_failed()) continue;
      std::lock_guard lock(error_mutex_);
      n.failed = true;
    }
  }
  // True when the run has outputs and every one of them failed: nothing is left to write.
  // Called from the graph's thread and from sink threads.
  bool every_output_failed() {
    int outputs = 0;
    int failed = 0;
    for (const auto& n : nodes_) {
      const bool side_output =
          n.role() == StageRole::Process && static_cast<const ProcessStage&>(*n.stage).has_side_output();
      if (n.role() == StageRole::Sink || side_output) {
        ++outputs;
        failed += output_left_out(n) ? 1 : 0;
      }
    }
    return outputs > 0 && failed == outputs;
  }

  // The run's error, else the failed outputs' (all of them, in one message).
  void throw_errors() {
    std::lock_guard lock(error_mutex_);
    if (output_errors_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return;
    }
    std::vector<std::string> messages;
    if (error_) messages.push_back(message_of(error_));
    messages.insert(messages.end(), output_errors_.begin(), output_errors_.end());
    throw std::runtime_error(fmt::format("{}", fmt::join(messages, "; ")));
  }

  void fail(std::exception_ptr error) {
    std::lock_guard lock(error_mutex_);
    if (!error_) error_ = error;
    stopping_ = true;
  }
  bool error_pending() {
    std::lock_guard lock(error_mutex_);
    return error_ != nullptr;
  }
  [[noreturn]] void throw_pending_error() {
    std::lock_guard lock(error_mutex_);
    if (error_) std::rethrow_exception(error_);
    throw std::runtime_error("a sink stopped unexpectedly");
  }

  bool stop_requested() const { return options_.stop != nullptr && options_.stop->load(); }

  std::int64_t frames_dropped() const {
    std::int64_t dropped = 0;
    for (const auto& n : nodes_)
      if (n.role() != StageRole::Process && n.queue) dropped += n.queue->dropped();
    return dropped;
  }

  // The latest frame's latency: the slowest sink's last one, or without sinks the frame just
  // retired.
  double latest_latency_ms(Clock::time_point retired_arrival) const {
    if (!has_sinks()) return std::chrono::duration<double, std::milli>(Clock::now() - retired_arrival).count();
    double latest = -1.0;
    for (const auto& n : nodes_)
      if (n.role() == StageRole::Sink) latest = std::max(latest, n.last_latency_ms->load(std::memory_order_relaxed));
    return latest;
  }

  bool has_sinks() const {
    for (const auto& n : nodes_)
      if (n.role() == StageRole::Sink) return true;
    return false;
  }
  int source_index() const {
    for (std::size_t i = 0; i < nodes_.size(); ++i)
      if (nodes_[i].role() == StageRole::Source) return static_cast<int>(i);
    return 0;
  }

  // The run's length when every source knows its own (the shortest wins), else -1.
  std::int64_t expected_frames() const {
    std::int64_t total = -1;
    for (const auto& n : nodes_) {
      if (n.role() != StageRole::Source) continue;
      if (n.info.frame_count < 0) return options_.max_frames;
      total = total < 0 ? n.info.frame_count : std::min(total, n.info.frame_count);
    }
    if (options_.max_frames >= 0 && (total < 0 || options_.max_frames < total)) return options_.max_frames;
    return total;
  }

  // A run stopped while it was still opening: the outputs it never reached were not made.
  void forget_unopened_outputs() {
    for (auto& n : nodes_)
      if (n.role() == StageRole::Sink && !n.opened) std::erase(stats_.outputs, n.sink().output_path());
  }

  void collect_stats() {
    for (auto& n : nodes_) {
      if (n.role() == StageRole::Source) {
        // NVDEC may turn the stream down at its first picture, after the open (auto goes on
        // in software): the summary and stats name the decoder that did the work.
        if (auto decoder = n.source().decoder_name(); decoder != n.timing.decoder) {
          spdlog::warn("{}: decoder {}", n.timing.id, decoder);
          n.timing.decoder = std::move(decoder);
        }
        n.timing.decode_errors = n.source().decode_errors();
        n.timing.frames_skipped_to_live = n.source().frames_skipped_to_live();
        if (n.queue) n.timing.frames_dropped = n.queue->dropped();
        stats_.frames_dropped += n.timing.frames_dropped;
        n.timing.reconnect = n.source().reconnect_stats();
      } else if (n.role() == StageRole::Sink && n.queue) {
        n.timing.frames_dropped = n.queue->dropped();
        stats_.frames_dropped += n.timing.frames_dropped;
        n.timing.reconnect = n.sink().reconnect_stats();
      }
      stats_.stages.push_back(n.timing);
      stats_.latency_ms.merge(n.latency_ms);
    }
  }

  PipelineGraph graph_;  // points into the definition, which outlives the run
  RunOptions options_;
  RunMonitor* monitor_ = options_.monitor;  // null: nothing published
  PublishThrottle graph_publish_;           // the graph's thread's
  // Destroyed after the nodes and the slots' work: its destructor waits for the device.
  std::unique_ptr<FrameSlots> slots_;
  std::vector<Node> nodes_;
  std::vector<SlotWork> slot_work_;
  Clock::time_point started_{};  // execute() began
  std::int64_t submitted_ = 0;  // frames enqueued into slots so far (the graph's thread alone)
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::vector<std::string> output_errors_;  // "ID: PATH: what: reason", in the order they failed
  bool finalizing_ = false;
  RunStats stats_;
};

}  // namespace

RunStats run_pipeline(const PipelineDefinition& definition, const Device& device, const RunOptions& options,
                      RunStats* stats_on_failure) {
  Run run(definition, device, options);
  try {
    return run.execute();
  } catch (...) {
    if (stats_on_failure != nullptr) *stats_on_failure = run.stats();
    throw;
  }
}

}  // namespace fp
