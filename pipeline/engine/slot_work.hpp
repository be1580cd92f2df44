// The graph's work for the frame in one slot. Every frame that work reads or writes is
// owned here until the executor's retire() has waited for the slot: the sources' host
// frames (on CUDA their upload may still be pending: released early, a decoder would reuse
// the buffer and the device would copy a mix of two frames), every node's output (device
// buffers the kernels use) and the host copies (downloads in flight) for the sinks and for
// a RunMonitor reader.
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/slot_work.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <array>
#include <chrono>
#include <utility>
#include <vector>

#include "core/frame.hpp"

namespace fp {

struct SlotWork {
  bool pending = false;
  std::vector<Frame> sources;                        // the frames the sources delivered, by node index
  std::vector<Frame> frames;                         // every node's output, by node index
  std::vector<std::pair<int, Frame>> deliveries;     // (sink, its place among the run's sinks; host frame)
  std::vector<std::pair<int, Frame>> shown;          // (node, host frame) a RunMonitor reader waits for
  // Host copies of the planes a stage wrote, by node and plane (HostCopies): one download
  // for every sink and reader of the node.
  std::vector<std::array<Plane, 3>> host_planes;
  std::chrono::steady_clock::time_point arrival{};   // the frame's, for latency without sinks

  void release() {
    sources.clear();
    frames.clear();
    deliveries.clear();
    shown.clear();
    host_planes.clear();
  }
};

}  // namespace fp
