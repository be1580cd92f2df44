#include "pipeline/engine/host_copies.hpp"

#include <cstring>

#include "core/frame_pool.hpp"

namespace fp {

HostCopies::HostCopies(const PipelineGraph& graph)
    : luma_of_(graph.nodes().size()), chroma_of_(graph.nodes().size()), uploads_chroma_(graph.nodes().size(), false) {
  const auto& nodes = graph.nodes();
  for (int i : graph.topological_order()) {
    const GraphNode& n = nodes[static_cast<std::size_t>(i)];
    luma_of_[i] = chroma_of_[i] = i;
    if (n.spec->role != StageRole::Process) {
      // A sink has no output; a source's planes are its own.
      if (n.spec->role == StageRole::Sink) luma_of_[i] = chroma_of_[i] = n.inputs[0];
      continue;
    }
    const PlaneUse& use = n.spec->planes;
    const int first = n.inputs[0];
    if (use.luma == PlaneOrigin::FirstInput) luma_of_[i] = luma_of_[first];
    if (use.chroma == PlaneOrigin::FirstInput) chroma_of_[i] = chroma_of_[first];
    if (use.chroma == PlaneOrigin::Neutral) chroma_of_[i] = kNeutral;
  }
  // A stage that reads chroma reads its inputs' chroma planes on the device: those that a
  // source's frame brings need its upload. (A stage's own planes, neutral ones included,
  // are on the device already.)
  for (int i : graph.topological_order()) {
    const GraphNode& n = nodes[static_cast<std::size_t>(i)];
    if (n.spec->role != StageRole::Process || !n.spec->planes.reads_chroma) continue;
    for (int in : n.inputs) {
      const int owner = chroma_of_[in];
      if (owner != kNeutral && nodes[static_cast<std::size_t>(owner)].spec->role == StageRole::Source)
        uploads_chroma_[owner] = true;
    }
  }
}

Frame HostCopies::host_frame(std::size_t node, SlotWork& work, FrameSlots& slots, int slot) {
  const Frame& out = work.frames[node];
  Frame host;
  host.width = out.width;
  host.height = out.height;
  host.location = MemoryLocation::Host;
  host.copy_timing_from(out);
  host.planes[0] = host_plane(luma_of_[node], 0, work, slots, slot);
  if (chroma_of_[node] == kNeutral) {
    const auto& neutral = neutral_chroma(out.width, out.height);
    host.planes[1] = neutral[0];
    host.planes[2] = neutral[1];
  } else {
    // An NVDEC frame's chroma that no stage read is still NV12 (the owner's frame as the
    // stages took it says so): one plane of pairs.
    const int owner = chroma_of_[node];
    host.layout = work.frames[static_cast<std::size_t>(owner)].layout;
    for (int p = 1; p < (host.layout == PlaneLayout::NV12 ? 2 : 3); ++p)
      host.planes[p] = host_plane(owner, p, work, slots, slot);
  }
  return host;
}

// One plane of node `owner`'s own output: the decoded host frame's when `owner` is a source
// that decoded on the host, else its download (one per slot and plane, shared).
Plane HostCopies::host_plane(int owner, int plane, SlotWork& work, FrameSlots& slots, int slot) {
  Plane& copy = work.host_planes[static_cast<std::size_t>(owner)][static_cast<std::size_t>(plane)];
  if (copy.data != nullptr) return copy;
  const Frame& delivered = work.sources[static_cast<std::size_t>(owner)];
  if (delivered.valid() && delivered.location == MemoryLocation::Host)
    copy = delivered.planes[static_cast<std::size_t>(plane)];
  else
    copy = slots.plane_to_host(work.frames[static_cast<std::size_t>(owner)], plane, slot);
  return copy;
}

const std::array<Plane, 2>& HostCopies::neutral_chroma(int width, int height) {
  auto& planes = neutral_[{width, height}];
  if (planes[0].data == nullptr) {
    FramePool pool(width, height);
    for (Plane& plane : planes) {
      plane = pool.acquire_chroma();
      for (int y = 0; y < plane.height; ++y)
        std::memset(plane.data + static_cast<std::ptrdiff_t>(y) * plane.pitch, 128, static_cast<std::size_t>(plane.width));
    }
  }
  return planes;
}

}  // namespace fp
