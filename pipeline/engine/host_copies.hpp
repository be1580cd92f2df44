// How a node's output reaches the host (for its sinks and a RunMonitor reader) with the
// fewest copies across PCIe. From the stages' PlaneUse declarations the run knows, for each
// node, whose plane its luma and its chroma are:
// - a plane no stage changed since a source decoded it on the host comes from that decoded
//   frame, which the slot already holds (no upload of chroma that no stage reads, no
//   download of chroma that no stage wrote);
// - neutral chroma (thinning's skeletons) comes from a host plane of 128s made once per
//   size: the same bytes the stage's device planes hold;
// - a plane a stage wrote is downloaded once a frame, whatever number of sinks and readers
//   take it (they share the page-locked copy; nothing writes a host frame after it);
// - an NVDEC frame's chroma that no stage reads stays NV12 on the device (never split) and
//   comes down as it is, one plane of U and V pairs: the host frame is NV12 then, and the
//   encoders take it so (VideoInfo::chroma_layout).
// The copies join the slot's work (SlotWork::host_planes) and are owned there until the
// slot is retired, like every frame the slot's work reads or writes.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/host_copies.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <array>
#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "core/frame.hpp"
#include "core/frame_slots.hpp"
#include "pipeline/definition/graph.hpp"
#include "pipeline/engine/slot_work.hpp"

namespace fp {

class HostCopies {
 public:
  static constexpr int kNeutral = -1;  // chroma_of(): 128 everywhere

  explicit HostCopies(const PipelineGraph& graph);

  // The node whose own plane node `node`'s luma (chroma) is: a source, or the stage that
  // wrote it; chroma_of may be kNeutral.
  int luma_of(std::size_t node) const { return luma_of_[node]; }
  int chroma_of(std::size_t node) const { return chroma_of_[node]; }
  // Whether a source's chroma must go to the device: some stage reads it there.
  bool uploads_chroma(std::size_t source) const { return uploads_chroma_[source]; }

  // Node `node`'s output for the slot's frame as a host frame (downloads enqueued on the
  // slot's stream, readable after the slot's wait). Graph's thread only.
  Frame host_frame(std::size_t node, SlotWork& work, FrameSlots& slots, int slot);

 private:
  Plane host_plane(int owner, int plane, SlotWork& work, FrameSlots& slots, int slot);
  const std::array<Plane, 2>& neutral_chroma(int width, int height);

  std::vector<int> luma_of_;
  std::vector<int> chroma_of_;
  std::vector<bool> uploads_chroma_;
  std::map<std::pair<int, int>, std::array<Plane, 2>> neutral_;  // by luma size; never written after
};

}  // namespace fp
