#include "pipeline/engine/run_monitor.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/interleaved_chroma.hpp"

namespace fp {

namespace {

Plane owned_plane(int width, int height) {
  Plane plane;
  const auto bytes = static_cast<std::size_t>(width) * static_cast<std::size_t>(height);
  plane.storage = std::shared_ptr<std::uint8_t>(new std::uint8_t[std::max<std::size_t>(bytes, 1)],
                                                std::default_delete<std::uint8_t[]>());
  plane.data = plane.storage.get();
  plane.width = width;
  plane.height = height;
  plane.pitch = width;
  return plane;
}

void copy_rows(const Plane& from, Plane& to) {
  for (int y = 0; y < to.height; ++y)
    std::memcpy(to.data + y * to.pitch, from.data + y * from.pitch, static_cast<std::size_t>(to.width));
}

// A host I420 copy of `frame` in buffers of its own. The frame handed over may hold a
// decoder's buffer (a fixed set of them) or a stage's pooled planes: a reader that keeps it
// must not keep them from the stream. NV12 chroma is split (an NVDEC frame on the host).
Frame owned_copy(const Frame& frame) {
  if (frame.location != MemoryLocation::Host)
    throw std::logic_error("RunMonitor::deliver_frame: the frame is not on the host");
  Frame copy;
  copy.width = frame.width;
  copy.height = frame.height;
  copy.copy_timing_from(frame);
  copy.planes[0] = owned_plane(frame.width, frame.height);
  copy_rows(frame.planes[0], copy.planes[0]);
  const int cw = chroma_width(frame.width);
  const int ch = chroma_height(frame.height);
  if (frame.layout == PlaneLayout::NV12 && frame.planes[1].data != nullptr) {
    copy.planes[1] = owned_plane(cw, ch);
    copy.planes[2] = owned_plane(cw, ch);
    deinterleave_chroma(frame.planes[1], copy.planes[1].view(), copy.planes[2].view());
  } else {
    // A frame without chroma planes stays without: the consumer (the JPEG encoder) gives
    // it neutral chroma.
    for (int p = 1; p < 3; ++p) {
      if (frame.planes[p].data == nullptr) continue;
      copy.planes[p] = owned_plane(frame.planes[p].width, frame.planes[p].height);
      copy_rows(frame.planes[p], copy.planes[p]);
    }
  }
  return copy;
}

}  // namespace

// ---- readers ----

RunStats RunMonitor::snapshot() const {
  std::lock_guard lock(mutex_);
  RunStats stats = stats_;
  if (ended_) return stats;  // exactly what the run returned
  for (const auto& latency : sink_latency_)
    if (latency) stats.latency_ms.merge(*latency);
  if (running_) stats.wall_seconds = std::chrono::duration<double>(Clock::now() - began_).count();
  return stats;
}

bool RunMonitor::reconnecting() const {
  std::lock_guard lock(mutex_);
  return std::any_of(reconnecting_.begin(), reconnecting_.end(), [](int lost) { return lost != 0; });
}

RunMonitor::Clock::time_point RunMonitor::last_heartbeat() const {
  std::lock_guard lock(mutex_);
  return heartbeat_;
}

std::vector<std::string> RunMonitor::frame_nodes() const {
  std::lock_guard lock(mutex_);
  return frame_nodes_;
}

std::size_t RunMonitor::frame_node_index(const std::string& id) const {
  const auto it = std::find(frame_nodes_.begin(), frame_nodes_.end(), id);
  if (it == frame_nodes_.end())
    throw std::invalid_argument("no stage '" + id + "' whose frames can be shown" +
                                (frame_nodes_.empty() ? std::string(" (the run has not set up its stages yet)") : ""));
  return static_cast<std::size_t>(it - frame_nodes_.begin());
}

std::optional<Frame> RunMonitor::newest_frame(const std::string& id, std::chrono::milliseconds wait) {
  std::unique_lock lock(mutex_);
  const std::size_t node = frame_of_[frame_node_index(id)];
  if (!running_) return std::nullopt;
  const std::uint64_t generation = generation_;
  const std::uint64_t delivered = deliveries_[node];
  wanted_[node].fetch_add(1, std::memory_order_relaxed);
  frame_arrived_.wait_for(lock, wait, [&] {
    return generation_ != generation || !running_ || deliveries_[node] != delivered;
  });
  if (generation_ != generation) return std::nullopt;  // another run began: its counters are new
  std::optional<Frame> frame;
  if (deliveries_[node] != delivered && frames_[node]) frame = *frames_[node];
  // The last reader to leave lets the frame go: a frame nobody waits for is not kept.
  if (wanted_[node].fetch_sub(1, std::memory_order_relaxed) == 1) frames_[node].reset();
  return frame;
}

bool RunMonitor::running() const {
  std::lock_guard lock(mutex_);
  return running_;
}

// ---- the executor ----

void RunMonitor::begin(const std::vector<StageTiming>& stages, const std::vector<std::string>& frame_nodes,
                       const std::vector<std::string>& outputs, const std::vector<std::size_t>& frame_of) {
  if (!frame_of.empty() && frame_of.size() != frame_nodes.size())
    throw std::invalid_argument("RunMonitor::begin: frame_of and frame_nodes differ in length");
  for (std::size_t f : frame_of)
    if (f >= frame_nodes.size()) throw std::invalid_argument("RunMonitor::begin: frame_of out of range");
  std::lock_guard lock(mutex_);
  ++generation_;
  stats_ = RunStats{};
  stats_.stages = stages;
  stats_.outputs = outputs;
  running_ = true;
  ended_ = false;
  began_ = Clock::now();
  sink_latency_.assign(stages.size(), std::nullopt);
  last_publish_.assign(stages.size() + 1, Clock::time_point{});  // the run's is the last
  reconnecting_.assign(stages.size(), 0);
  frame_nodes_ = frame_nodes;
  frame_of_ = frame_of;
  if (frame_of_.empty())
    for (std::size_t i = 0; i < frame_nodes.size(); ++i) frame_of_.push_back(i);
  wanted_count_ = frame_nodes.size();
  wanted_ = std::make_unique<std::atomic<int>[]>(wanted_count_);
  for (std::size_t i = 0; i < wanted_count_; ++i) wanted_[i].store(0);
  frames_.assign(frame_nodes.size(), std::nullopt);
  deliveries_.assign(frame_nodes.size(), 0);
  heartbeat_ = Clock::time_point{};
  frame_arrived_.notify_all();  // readers of an earlier run leave
}

bool RunMonitor::due(std::size_t slot, bool force) {
  const auto now = Clock::now();
  if (!force && now - last_publish_[slot] < kPublishInterval) return false;
  last_publish_[slot] = now;
  return true;
}

void RunMonitor::publish_stage(std::size_t index, const StageTiming& timing, const LatencyHistogram* latency,
                               bool force) {
  std::lock_guard lock(mutex_);
  if (!running_ || index >= stats_.stages.size() || !due(index, force)) return;
  stats_.stages[index] = timing;
  if (latency != nullptr) sink_latency_[index] = *latency;
}

void RunMonitor::publish_run(std::int64_t frames, std::int64_t frames_dropped, double first_frame_seconds, bool force,
                             const LatencyHistogram* latency) {
  std::lock_guard lock(mutex_);
  if (!running_ || !due(last_publish_.size() - 1, force)) return;
  stats_.frames = frames;
  stats_.frames_dropped = frames_dropped;
  stats_.first_frame_seconds = first_frame_seconds;
  if (latency != nullptr) stats_.latency_ms = *latency;
  heartbeat_ = last_publish_.back();
}

void RunMonitor::reconnect_event(std::size_t index, const ReconnectEvent& event) {
  std::lock_guard lock(mutex_);
  if (!running_ || index >= reconnecting_.size()) return;
  // Lost and each failed attempt: still away. Back: frames again.
  reconnecting_[index] = event.kind == ReconnectEvent::Kind::Back || event.kind == ReconnectEvent::Kind::Opened ? 0 : 1;
}

bool RunMonitor::frame_wanted(std::size_t frame_node) const {
  return frame_node < wanted_count_ && wanted_[frame_node].load(std::memory_order_relaxed) > 0;
}

void RunMonitor::deliver_frame(std::size_t frame_node, Frame frame) {
  if (frame_node >= wanted_count_) return;
  Frame copy = owned_copy(frame);  // outside the lock: readers are not held up by the copy
  frame = Frame{};                 // the pooled buffers go back now
  std::lock_guard lock(mutex_);
  if (!running_) return;
  if (wanted_[frame_node].load(std::memory_order_relaxed) > 0) frames_[frame_node] = std::move(copy);
  ++deliveries_[frame_node];
  frame_arrived_.notify_all();
}

void RunMonitor::end(const RunStats& final_stats) {
  std::lock_guard lock(mutex_);
  stats_ = final_stats;
  running_ = false;
  ended_ = true;
  std::fill(reconnecting_.begin(), reconnecting_.end(), 0);
  for (auto& frame : frames_) frame.reset();
  heartbeat_ = Clock::now();
  frame_arrived_.notify_all();
}

}  // namespace fp
