// A node whose output frames the graph's thread puts in a frame slot: a source (its
// decoded frame, brought to the device) or a processing stage (its work, enqueued).
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/producer_node.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <span>

#include "core/frame_slots.hpp"
#include "pipeline/engine/host_copies.hpp"
#include "pipeline/engine/run_monitor.hpp"
#include "pipeline/engine/run_node.hpp"
#include "pipeline/engine/run_options.hpp"
#include "pipeline/engine/slot_work.hpp"

namespace fp {

// What a node needs to enqueue its share of the frame in one slot.
struct SlotEnqueue {
  FrameSlots& slots;
  int slot;
  SlotWork& work;
  RunMonitor* monitor;  // null: nothing is published
  const RunHooks& hooks;
  HostCopies& host;

  FrameContext& context() { return slots.context(slot); }
  // A reader of the monitor waits for node `node`'s next frame: its host copy joins the
  // slot's work like a sink's (on CUDA a download on the slot's stream, read only after the
  // slot's wait). The stream never waits for the reader.
  void show_if_wanted(std::size_t node) {
    if (monitor != nullptr && monitor->frame_wanted(node))
      work.shown.emplace_back(static_cast<int>(node), host.host_frame(node, work, slots, slot));
  }
};

class ProducerNode : public RunNode {
 public:
  using RunNode::RunNode;
  // The set-up, in topological order (after the node's inputs): opens the input or prepares
  // the stage for its inputs' streams, and sets `info` to the stream it outputs.
  virtual void prepare(std::span<const VideoInfo> inputs) = 0;
  // Puts the node's output for the slot's frame in work.frames[index()].
  virtual void enqueue(SlotEnqueue& slot) = 0;
};

}  // namespace fp
