#include "pipeline/engine/process_node.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <utility>
#include <vector>

namespace fp {

ProcessNode::ProcessNode(std::size_t index, const GraphNode& graph, std::unique_ptr<Stage> stage)
    : ProducerNode(index, graph), stage_(std::move(stage)) {}

void ProcessNode::prepare(std::span<const VideoInfo> inputs) {
  info = process().prepare(inputs);
  // Chroma passed through keeps its layout; a stage's own chroma is I420.
  const bool passes_chroma = graph().spec->planes.chroma == PlaneOrigin::FirstInput;
  info.chroma_layout = passes_chroma && !inputs.empty() ? inputs.front().chroma_layout : PlaneLayout::I420;
}

void ProcessNode::enqueue(SlotEnqueue& slot) {
  const auto i = index();
  inputs_.clear();  // kept between frames: no frame allocates it once warm
  for (int in : graph().inputs) inputs_.push_back(slot.work.frames[static_cast<std::size_t>(in)]);
  const auto t0 = RunClock::now();
  slot.slots.begin_stage(slot.slot, static_cast<int>(i));
  Frame& out = slot.work.frames[i] = process().process(inputs_, slot.context());
  slot.slots.end_stage(slot.slot, static_cast<int>(i));
  // A stage starts its output from its first input (layout included); chroma of its own is
  // I420 whatever the input's was.
  if (graph().spec->planes.chroma != PlaneOrigin::FirstInput) out.layout = PlaneLayout::I420;
  timing.enqueue_ms += ms_since(t0);
  ++timing.frames;
  check_plane_use(inputs_.front(), slot.work.frames[i]);
  inputs_.clear();  // the slot's work holds the frames from here
  slot.show_if_wanted(i);
}

// The executor takes a plane declared FirstInput from the first input's host copy, so a
// stage that declares it and changes the plane would have its change lost: checked on every
// frame (a pointer compare), it is a bug in the stage, found by any test that runs it.
void ProcessNode::check_plane_use(const Frame& first, const Frame& out) const {
  const PlaneUse& use = graph().spec->planes;
  const bool luma_kept = out.planes[0].data == first.planes[0].data;
  const bool chroma_kept = out.planes[1].data == first.planes[1].data && out.planes[2].data == first.planes[2].data;
  if ((use.luma == PlaneOrigin::FirstInput && !luma_kept) || (use.chroma == PlaneOrigin::FirstInput && !chroma_kept))
    throw std::logic_error(fmt::format("{}: the {} stage replaced a plane it declares passed through (StageSpec::planes)",
                                       timing.id, timing.type));
}

}  // namespace fp
