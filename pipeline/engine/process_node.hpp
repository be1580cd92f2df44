// A processing stage in a run: the graph's thread enqueues its work for each frame in the
// frame's slot (on CUDA on the slot's stream; on the CPU it runs in the call).
#pragma once
#if !defined(FRAMEPIPE_ROOM_ENGINE)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/engine/process_node.hpp is private to pipeline/engine/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <memory>

#include "pipeline/engine/producer_node.hpp"
#include "stages/stage.hpp"

namespace fp {

class ProcessNode final : public ProducerNode {
 public:
  ProcessNode(std::size_t index, const GraphNode& graph, std::unique_ptr<Stage> stage);

  void prepare(std::span<const VideoInfo> inputs) override;
  void enqueue(SlotEnqueue& slot) override;
  // Its time for a frame, once the slot is complete (GPU time on CUDA).
  void add_stage_ms(double ms) { timing.total_ms += ms; }
  void finalize() override { process().finish(); }  // flushes a side output

  // A side output (a histogram's rows) fails inside its stage, on the graph's thread, the
  // only one that may ask the stage.
  bool has_side_output() const { return static_cast<const ProcessStage&>(*stage_).has_side_output(); }
  bool side_output_failed() { return process().side_output_failed(); }

 private:
  ProcessStage& process() { return static_cast<ProcessStage&>(*stage_); }
  void check_plane_use(const Frame& first, const Frame& out) const;

  std::unique_ptr<Stage> stage_;
  std::vector<Frame> inputs_;  // enqueue()'s, kept so that no frame allocates it
};

}  // namespace fp
