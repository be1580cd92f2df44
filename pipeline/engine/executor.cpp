#include "pipeline/engine/executor.hpp"

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

#include "core/cpu_account.hpp"
#include "media/output_target.hpp"
#include "media/stream_uri.hpp"
#include "pipeline/definition/graph.hpp"
#include "pipeline/engine/bounded_queue.hpp"
#include "pipeline/engine/host_copies.hpp"
#include "pipeline/engine/output_failures.hpp"
#include "pipeline/engine/output_paths.hpp"
#include "pipeline/engine/process_node.hpp"
#include "pipeline/engine/progress.hpp"
#include "pipeline/engine/publish_throttle.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "pipeline/engine/sink_node.hpp"
#include "pipeline/engine/slot_work.hpp"
#include "pipeline/engine/source_node.hpp"
#include "stages/frame_slots_for.hpp"

namespace fp {

namespace {

constexpr auto kPollInterval = std::chrono::milliseconds(50);

class Run {
 public:
  Run(const PipelineDefinition& definition, const Device& device, const RunOptions& options)
      : graph_(definition), confinement_(definition.confinement), options_(options), failures_(graph_.nodes().size()), host_copies_(graph_) {
    stats_.pipeline = definition.file;
    stats_.device = device.name();
    slots_ = make_frame_slots(device, device.kind == DeviceKind::Cuda ? options.slots : 1,
                              static_cast<int>(graph_.nodes().size()));
    slot_work_.resize(static_cast<std::size_t>(slots_->count()));
    std::vector<ProducerNode*> producer_at(graph_.nodes().size(), nullptr);
    for (const auto& g : graph_.nodes()) add_node(g, device, producer_at);
    for (int i : graph_.topological_order())
      if (auto* producer = producer_at[static_cast<std::size_t>(i)]) producers_.push_back(producer);
  }

  // Whatever path led here, the device finishes with every buffer before any is released.
  ~Run() { slots_->wait_idle(); }
  Run(const Run&) = delete;
  Run& operator=(const Run&) = delete;

  RunStats execute() {
    // This (the graph's) thread's time and the CPU pool's on its stages' rows are the run's.
    const ThreadCpuCharge charge(options_.cpu_account);
    started_ = RunClock::now();
    const auto start = started_;
    // Whatever way the run ends, its watchers see the stats it returns (or leaves in
    // stats_on_failure), and readers waiting for a frame are let go.
    struct EndMonitor {
      Run& run;
      ~EndMonitor() {
        if (run.monitor_ == nullptr) return;
        try {
          run.monitor_->end(run.stats_);
        } catch (...) {  // no memory for the copy: the run's own result matters more
        }
      }
    } end_monitor{*this};
    begin_monitor();
    try {
      set_up();
      publish_set_up();
    } catch (...) {
      finalize();
      // An open that gave up because a stop was requested (a silent server, say) is the
      // interruption the user asked for, not a failure.
      if (!stop_requested()) throw;
      stats_.interrupted = true;
      forget_unopened_outputs();
      stats_.wall_seconds = std::chrono::duration<double>(RunClock::now() - start).count();
      collect_stats();
      return stats_;
    }
    start_threads();
    const double graph_cpu_at_start = current_thread_cpu_ms();
    if (!error_pending()) process_frames();
    graph_cpu_ms_ = current_thread_cpu_ms() - graph_cpu_at_start;
    stop_sources();
    for (auto* sink : sinks_) sink->end_of_stream();  // sinks drain and stop
    for (auto& t : threads_) t.join();
    for (auto* source : sources_)
      if (source->error()) fail(source->error());
    finalize();
    stats_.wall_seconds = std::chrono::duration<double>(RunClock::now() - start).count();
    collect_stats();  // also for a run that failed: what it did before (stats())
    throw_errors();
    return stats_;
  }
  const RunStats& stats() const { return stats_; }

 private:
  // Creates the node's stage and the node of its kind (a producer also in `producer_at`).
  // Its outputs (a sink, a side output) are told to failures_.
  void add_node(const GraphNode& g, const Device& device, std::vector<ProducerNode*>& producer_at) {
    const std::size_t index = nodes_.size();
    const StageRole role = g.spec->role;
    StageContext context{g.stage->id, device, slots_->count(), static_cast<int>(options_.queue_depth), options_.stop};
    context.confinement = confinement_;
    // A source's reconnects show as the stream reconnecting; an output's (a receiver gone)
    // do not: the stream itself goes on.
    if (options_.monitor != nullptr && role == StageRole::Source)
      context.reconnect_observer = [monitor = options_.monitor, index](const ReconnectEvent& event) {
        monitor->reconnect_event(index, event);
      };
    auto stage = g.spec->create(g.stage->params, context);
    for (const auto& param : path_params(*g.stage))
      if (names_a_file(param.path)) stats_.outputs.push_back(mask_credentials(param.path));
    switch (role) {
      case StageRole::Source: {
        auto node = std::make_unique<SourceNode>(index, g, std::move(stage), options_, stopping_);
        node->set_uploads_chroma(host_copies_.uploads_chroma(index));
        sources_.push_back(node.get());
        producer_at[index] = node.get();
        nodes_.push_back(std::move(node));
        break;
      }
      case StageRole::Process: {
        auto node = std::make_unique<ProcessNode>(index, g, std::move(stage));
        processes_.push_back(node.get());
        producer_at[index] = node.get();
        if (node->has_side_output()) failures_.count_as_output(index);
        nodes_.push_back(std::move(node));
        break;
      }
      case StageRole::Sink: {
        auto node = std::make_unique<SinkNode>(index, g, std::move(stage), monitor_, failures_, options_.hooks);
        sinks_.push_back(node.get());
        failures_.count_as_output(index);
        nodes_.push_back(std::move(node));
        break;
      }
    }
  }

  // Tells the monitor the nodes before any thread starts. Every node's id can be asked for
  // frames; a sink's gives its input's.
  void begin_monitor() {
    if (monitor_ == nullptr) return;
    std::vector<StageTiming> stages;
    std::vector<std::string> ids;
    std::vector<std::size_t> frame_of;
    for (const auto& n : nodes_) {
      stages.push_back(n->timing);
      ids.push_back(n->id());
      frame_of.push_back(n->shown_node());
    }
    // No heartbeat yet: that begins once the inputs are open (publish_set_up), so a watcher
    // tells a stream still opening (no heartbeat) from a stalled one (an old heartbeat).
    monitor_->begin(stages, ids, stats_.outputs, frame_of);
  }

  // After the set-up, before any other thread starts (so the graph's thread may still read
  // every node): the decoders and encoders chosen, and a heartbeat again after the opens.
  void publish_set_up() {
    if (monitor_ == nullptr) return;
    for (const auto& n : nodes_) monitor_->publish_stage(n->index(), n->timing, nullptr, true);
    publish_graph(true);
  }

  // The graph thread's share: the processing stages, the run's totals and the heartbeat.
  void publish_graph(bool force = false) {
    charge_thread_cpu();
    if (monitor_ == nullptr || !(graph_publish_.due() || force)) return;
    for (const auto* n : processes_) monitor_->publish_stage(n->index(), n->timing, nullptr, true);
    monitor_->publish_run(stats_.frames, frames_dropped(), stats_.first_frame_seconds, true,
                          sinks_.empty() ? &stats_.latency_ms : nullptr);
  }

  // Opens sources, prepares the processing stages in graph order, then opens the sinks, so
  // a source or stage that fails creates no output file.
  void set_up() {
    check_output_paths();
    for (auto* producer : producers_) producer->prepare(input_infos(*producer));
    for (auto* sink : sinks_) sink->open(nodes_[sink->input()]->info, [this] { return stop_requested(); });
  }

  // Every output file can be created: a missing or read-only directory fails the run here,
  // before any input is opened or any output created. A network output has no file; its
  // receiver is found when it is opened.
  void check_output_paths() const {
    for (const auto& n : nodes_)
      for (const auto& param : path_params(*n->graph().stage)) {
        const std::string& path = param.path;
        if (!names_a_file(path) || is_network_output(path)) continue;
        if (const auto reason = cannot_create_reason(path); !reason.empty())
          throw std::runtime_error(fmt::format("{}: {}: cannot create: {}", n->id(), path, reason));
      }
  }

  std::vector<VideoInfo> input_infos(const RunNode& n) const {
    std::vector<VideoInfo> infos;
    for (int i : n.graph().inputs) infos.push_back(nodes_[static_cast<std::size_t>(i)]->info);
    return infos;
  }

  // Every queue exists before any thread starts. A thread that cannot start (std::thread
  // throws std::system_error) fails the run like any other error: the threads already
  // running are stopped and joined, and the outputs finalized.
  void start_threads() {
    for (auto* source : sources_) source->make_queue(options_.queue_depth, options_.drop);
    for (auto* sink : sinks_) sink->make_queue(options_.queue_depth);
    for (const auto& n : nodes_) {  // in the pipeline's order
      if (!n->runs_thread()) continue;
      try {
        if (options_.hooks.before_thread_start) options_.hooks.before_thread_start(n->id());
        threads_.emplace_back([node = n.get(), account = options_.cpu_account] {
          const ThreadCpuCharge charge(account);  // the node charges it once a frame
          node->run_thread();
        });
      } catch (const std::exception& e) {
        fail(std::make_exception_ptr(
            std::runtime_error(fmt::format("{}: cannot start its thread: {}", n->id(), e.what()))));
        return;
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
        const auto t0 = RunClock::now();
        enqueue(slot, sources);
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

  // Enqueues the graph on the sources' frames in `slot`, which takes ownership of them:
  // `sources` comes back empty, one empty frame per node (the slot's emptied vectors are
  // swapped back and forth, so no frame allocates a vector once warm).
  void enqueue(int slot, std::vector<Frame>& sources) {
    auto& work = slot_work_[static_cast<std::size_t>(slot)];
    auto& context = slots_->context(slot);
    work.release();
    work.sources.swap(sources);
    sources.assign(nodes_.size(), Frame{});
    work.frames.assign(nodes_.size(), Frame{});
    work.host_planes.assign(nodes_.size(), {});
    SlotEnqueue enqueue{*slots_, slot, work, monitor_, options_.hooks, host_copies_};
    try {
      for (auto* producer : producers_) producer->enqueue(enqueue);
      // Every sink of a node shares its one host copy (HostCopies).
      for (std::size_t s = 0; s < sinks_.size(); ++s)
        work.deliveries.emplace_back(static_cast<int>(s), host_copies_.host_frame(sinks_[s]->input(), work, *slots_, slot));
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

  // Waits for the slot's frame, runs its completions and hands its outputs to the sinks.
  void retire(int slot, ProgressLine& progress) {
    auto& work = slot_work_[static_cast<std::size_t>(slot)];
    if (!work.pending) return;
    work.pending = false;
    std::vector<double>& stage_ms = stage_ms_;
    stage_ms.assign(nodes_.size(), 0.0);
    const auto t0 = RunClock::now();
    slots_->wait(slot, stage_ms);
    stats_.wait_ms += ms_since(t0);
    // Only the processing stages' times come from the slots; sources and sinks time
    // themselves on their own threads, which own their timing.
    for (auto* n : processes_) n->add_stage_ms(stage_ms[n->index()]);
    work.sources.clear();  // the device is done with them: back to their pools
    work.frames.clear();
    slots_->context(slot).run_completions();
    // The downloads are complete (the slot's wait above): the monitor copies the frames.
    for (auto& [node, frame] : work.shown) monitor_->deliver_frame(static_cast<std::size_t>(node), std::move(frame));
    work.shown.clear();
    for (auto& [sink, frame] : work.deliveries)
      if (!sinks_[static_cast<std::size_t>(sink)]->deliver(std::move(frame)))
        throw_pending_error();
    work.deliveries.clear();
    if (++stats_.frames == 1) stats_.first_frame_seconds = ms_since(started_) / 1000.0;
    if (sinks_.empty())
      stats_.latency_ms.add(std::chrono::duration<double, std::milli>(RunClock::now() - work.arrival).count());
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
    for (auto* source : sources_) {
      Frame& out = outputs[source->index()];
      for (;;) {
        publish_graph();  // also the heartbeat while the input is idle (every poll at most)
        note_side_output_failures();
        if (error_pending() || failures_.all_failed()) return false;
        if (stop_requested()) {
          stats_.interrupted = true;
          return false;
        }
        auto status = source->pop(out, std::chrono::milliseconds(0));
        if (status == BoundedQueue<Frame>::PopStatus::Timeout && !retire_oldest(progress))
          status = source->pop(out, kPollInterval);
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
    for (auto* source : sources_) source->stop();
  }

  // Flushes side outputs and finalizes every opened sink (a full disk often shows only in
  // this last flush); each failure is kept.
  void finalize() {
    failures_.finalizing();
    for (auto& n : nodes_) {
      try {
        n->finalize();
      } catch (...) {
        failures_.failed(n->index(), n->id(), std::current_exception());
      }
    }
  }

  // A side output (a histogram's rows) fails inside its stage, on the graph's thread, the
  // only one that may ask the stage; the failure is copied into OutputFailures, where a
  // sink thread reads it.
  void note_side_output_failures() {
    for (auto* n : processes_)
      if (!failures_.left_out(n->index()) && n->side_output_failed()) failures_.left_out_silently(n->index());
  }

  // The run's error, else the failed outputs' (all of them, in one message).
  void throw_errors() {
    const auto output_errors = failures_.messages();
    std::lock_guard lock(error_mutex_);
    if (output_errors.empty()) {
      if (error_) std::rethrow_exception(error_);
      return;
    }
    std::vector<std::string> messages;
    if (error_) messages.push_back(message_of(error_));
    messages.insert(messages.end(), output_errors.begin(), output_errors.end());
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
    for (const auto& n : nodes_) dropped += n->frames_dropped();
    return dropped;
  }

  // The latest frame's latency: the slowest sink's last one, or without sinks the frame just
  // retired.
  double latest_latency_ms(RunClock::time_point retired_arrival) const {
    if (sinks_.empty()) return std::chrono::duration<double, std::milli>(RunClock::now() - retired_arrival).count();
    double latest = -1.0;
    for (const auto* sink : sinks_) latest = std::max(latest, sink->last_latency_ms());
    return latest;
  }

  // The run's length when every source knows its own (the shortest wins), else -1.
  std::int64_t expected_frames() const {
    std::int64_t total = -1;
    for (const auto* source : sources_) {
      if (source->info.frame_count < 0) return options_.max_frames;
      total = total < 0 ? source->info.frame_count : std::min(total, source->info.frame_count);
    }
    if (options_.max_frames >= 0 && (total < 0 || options_.max_frames < total)) return options_.max_frames;
    return total;
  }

  // A run stopped while it was still opening: the outputs it never reached were not made.
  void forget_unopened_outputs() {
    for (auto* sink : sinks_)
      if (!sink->opened()) std::erase(stats_.outputs, sink->output_path());
  }

  void collect_stats() {
    stats_.host_cpu_ms = graph_cpu_ms_;
    for (auto& n : nodes_) {
      n->collect_stats(stats_);
      stats_.stages.push_back(n->timing);
      stats_.host_cpu_ms += n->thread_cpu_ms;
    }
    stats_.bytes_uploaded = slots_->bytes_uploaded();
    stats_.bytes_downloaded = slots_->bytes_downloaded();
  }

  PipelineGraph graph_;  // points into the definition, which outlives the run
  std::optional<PathConfinement> confinement_;  // the definition's: where its stages may open files
  RunOptions options_;
  RunMonitor* monitor_ = options_.monitor;  // null: nothing published
  PublishThrottle graph_publish_;           // the graph's thread's
  OutputFailures failures_;                 // sinks and side outputs left out
  HostCopies host_copies_;                  // which planes cross to the host, and how
  // Destroyed after the nodes and the slots' work: its destructor waits for the device.
  std::unique_ptr<FrameSlots> slots_;
  std::vector<std::unique_ptr<RunNode>> nodes_;  // by index: the pipeline's order
  std::vector<ProducerNode*> producers_;         // sources and processing stages, in topological order
  std::vector<SourceNode*> sources_;             // in the pipeline's order, as are the two below
  std::vector<ProcessNode*> processes_;
  std::vector<SinkNode*> sinks_;
  std::vector<SlotWork> slot_work_;
  std::vector<double> stage_ms_;  // retire()'s, kept so that no frame allocates it
  RunClock::time_point started_{};  // execute() began
  double graph_cpu_ms_ = 0;         // the graph thread's CPU time while frames flowed
  std::int64_t submitted_ = 0;  // frames enqueued into slots so far (the graph's thread alone)
  std::vector<std::thread> threads_;
  std::atomic<bool> stopping_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
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
