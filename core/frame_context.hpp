// What the executor hands a stage (and the op that runs it) with each frame: which frame
// slot it runs in, that slot's CUDA stream, and the host work to run once the slot's device
// work is complete.
#pragma once

#include <functional>
#include <utility>
#include <vector>

// What cudaStream_t points to (a global name): no CUDA headers needed here.
struct CUstream_st;

namespace fp {

class FrameContext {
 public:
  int slot = 0;                     // 0 .. the run's slots - 1
  ::CUstream_st* stream = nullptr;  // the slot's CUDA stream; null on the CPU

  // Host work that needs this frame's device results (a histogram row read from pinned
  // memory, say): it runs once the slot's device work is complete, in frame order, before
  // the frame's outputs reach the sinks. On the CPU it runs right after the graph.
  void when_complete(std::function<void()> work) { completions_.push_back(std::move(work)); }

  // For the executor: runs and forgets the pending work.
  void run_completions() {
    auto work = std::move(completions_);
    completions_.clear();
    for (auto& w : work) w();
  }
  void drop_completions() { completions_.clear(); }

 private:
  std::vector<std::function<void()>> completions_;
};

}  // namespace fp
