// FrameSlots on a CUDA device: a stream, a completion event and a pair of timing events per
// stage for each slot, and pools of device frames (uploads) and page-locked host frames
// (downloads) that are allocated during the first frames and reused after.
#include "cuda/frame_slots.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/frame_pool.hpp"
#include "cuda/cuda_check.hpp"
#include "cuda/device_image.hpp"
#include "cuda/plane_memory.hpp"
#include "cuda/split_chroma.hpp"
#include "cuda/stream.hpp"

namespace fp {

namespace {

// How the graph's thread waits for a slot's frame (FRAMEPIPE_GPU_WAIT). `block` (the
// default): it sleeps until the GPU signals the slot's event. `spin`: it polls, which wakes a
// few microseconds sooner but keeps a core busy for the whole frame time — with more streams
// than cores the spinning threads take the CPU from the decoders, the sources and each
// other (docs/bench/README.md has the measurement behind the default).
unsigned done_event_flags() {
  const char* text = std::getenv("FRAMEPIPE_GPU_WAIT");
  const std::string mode = text != nullptr ? text : "block";
  if (mode == "block") return cudaEventBlockingSync | cudaEventDisableTiming;
  if (mode == "spin") return cudaEventDisableTiming;
  throw std::invalid_argument("FRAMEPIPE_GPU_WAIT: expected block or spin (got '" + mode + "')");
}

class CudaFrameSlots final : public FrameSlots {
 public:
  CudaFrameSlots(int ordinal, int slots, int nodes)
      : device_memory_(cuda::device_plane_memory(ordinal)), pinned_memory_(cuda::pinned_plane_memory()) {
    if (slots < 1) throw std::invalid_argument("CudaFrameSlots: at least one slot");
    FP_CUDA_CHECK(cudaSetDevice(ordinal));
    const unsigned done_flags = done_event_flags();
    for (int s = 0; s < slots; ++s) {
      auto slot = std::make_unique<Slot>(done_flags);
      slot->context.slot = s;
      slot->context.stream = slot->stream.get();
      slot->stage_events.resize(static_cast<std::size_t>(nodes));
      slots_.push_back(std::move(slot));
    }
  }

  // Nothing may still read or write the pools' buffers when they are freed.
  ~CudaFrameSlots() override { wait_idle(); }

  int count() const override { return static_cast<int>(slots_.size()); }
  FrameContext& context(int slot) override { return slots_[slot]->context; }

  Frame to_device(const Frame& frame, int slot, bool with_chroma) override {
    if (frame.location == MemoryLocation::Device) return device_frame(frame, slot, with_chroma);
    auto& frames = pool(device_pools_, frame, device_memory_);
    Frame out;
    if (with_chroma) {
      out = frames.acquire();
    } else {
      out.width = frame.width;
      out.height = frame.height;
      out.location = MemoryLocation::Device;
      out.device = device_memory_.device;
      out.planes[0] = frames.acquire_luma();
    }
    out.copy_timing_from(frame);
    for (int p = 0; p < (with_chroma ? 3 : 1); ++p)
      copy_plane(frame.planes[p], out.planes[p], 1, cudaMemcpyHostToDevice, slot);
    return out;
  }

  Frame to_host(const Frame& frame, int slot) override {
    if (frame.location == MemoryLocation::Host) return frame;
    Frame out;
    out.width = frame.width;
    out.height = frame.height;
    out.layout = frame.layout;
    out.copy_timing_from(frame);
    for (int p = 0; p < 3; ++p)
      if (frame.planes[p].data != nullptr) out.planes[p] = plane_to_host(frame, p, slot);
    return out;
  }

  // NV12's chroma comes down as it is, one plane of pairs.
  Plane plane_to_host(const Frame& frame, int plane, int slot) override {
    const Plane& from = frame.planes[plane];
    if (frame.location == MemoryLocation::Host) return from;
    auto& frames = pool(pinned_pools_, frame, pinned_memory_);
    const bool pairs = plane == 1 && frame.layout == PlaneLayout::NV12;
    Plane out = plane == 0 ? frames.acquire_luma() : pairs ? frames.acquire_interleaved_chroma() : frames.acquire_chroma();
    copy_plane(from, out, pairs ? 2 : 1, cudaMemcpyDeviceToHost, slot);
    return out;
  }

  std::int64_t bytes_uploaded() const override { return bytes_uploaded_; }
  std::int64_t bytes_downloaded() const override { return bytes_downloaded_; }

  void wait_idle() noexcept override {
    for (auto& slot : slots_) cudaStreamSynchronize(slot->stream.get());
  }

  void begin_stage(int slot, int node) override { record(slot, node, true); }
  void end_stage(int slot, int node) override { record(slot, node, false); }

  void submit(int slot) override {
    auto& s = *slots_[slot];
    s.done.record(s.stream.get());
  }

  void wait(int slot, std::vector<double>& stage_ms) override {
    auto& s = *slots_[slot];
    FP_CUDA_CHECK(cudaEventSynchronize(s.done.get()));
    for (std::size_t node = 0; node < s.stage_events.size(); ++node) {
      auto& timing = s.stage_events[node];
      if (!timing.recorded) continue;
      timing.recorded = false;
      stage_ms[node] += timing.end.elapsed_since(timing.begin);
    }
  }

 private:
  struct StageEvents {
    cuda::Event begin;
    cuda::Event end;
    bool recorded = false;
  };
  struct Slot {
    explicit Slot(unsigned done_flags) : done(done_flags) {}
    cuda::Stream stream;
    cuda::Event done;
    FrameContext context;
    std::vector<StageEvents> stage_events;
  };
  using Pools = std::map<std::pair<int, int>, std::unique_ptr<FramePool>>;

  // Frames of several sizes may cross (two sources, say): one pool per size.
  static FramePool& pool(Pools& pools, const Frame& like, const PlaneMemory& memory) {
    auto& p = pools[{like.width, like.height}];
    if (!p) p = std::make_unique<FramePool>(like.width, like.height, memory);
    return *p;
  }

  // A frame already on the device (NVDEC's): the slot's stream waits until its producer has
  // written it, and the luma is read in place. NV12's chroma stays as it is unless a stage
  // reads chroma (`with_chroma`): then it is split into pooled I420 planes. Unsplit, a sink
  // downloads it in one copy and an encoder takes it as NV12 (x264 and NVENC do): no
  // kernel and no chroma buffers for frames whose chroma no stage looks at. The caller
  // keeps `frame` (and so the decoder's buffer) until the slot retires.
  Frame device_frame(const Frame& frame, int slot, bool with_chroma) {
    cudaStream_t stream = slots_[slot]->stream.get();
    if (frame.ready) FP_CUDA_CHECK(cudaStreamWaitEvent(stream, static_cast<cudaEvent_t>(frame.ready.get()), 0));
    if (frame.layout == PlaneLayout::I420 || !with_chroma) return frame;
    auto& frames = pool(device_pools_, frame, device_memory_);
    Frame out;
    out.width = frame.width;
    out.height = frame.height;
    out.location = MemoryLocation::Device;
    out.device = frame.device;
    out.copy_timing_from(frame);
    out.planes[0] = frame.planes[0];
    out.planes[1] = frames.acquire_chroma();
    out.planes[2] = frames.acquire_chroma();
    const Plane& uv = frame.planes[1];
    cuda::split_chroma(uv.data, uv.pitch, out.planes[1].view(), out.planes[2].view(), stream);
    return out;
  }

  // `bytes_per_sample` bytes for each of src.width samples a row (2 for NV12's chroma pairs).
  void copy_plane(const Plane& src, Plane& dst, int bytes_per_sample, cudaMemcpyKind kind, int slot) {
    const auto row_bytes = static_cast<std::size_t>(src.width) * static_cast<std::size_t>(bytes_per_sample);
    FP_CUDA_CHECK(cudaMemcpy2DAsync(dst.data, dst.pitch, src.data, src.pitch, row_bytes, src.height, kind,
                                    slots_[slot]->stream.get()));
    const auto bytes = static_cast<std::int64_t>(row_bytes) * src.height;
    (kind == cudaMemcpyHostToDevice ? bytes_uploaded_ : bytes_downloaded_) += bytes;
  }

  void record(int slot, int node, bool begin) {
    auto& s = *slots_[slot];
    auto& timing = s.stage_events[static_cast<std::size_t>(node)];
    (begin ? timing.begin : timing.end).record(s.stream.get());
    if (!begin) timing.recorded = true;
  }

  PlaneMemory device_memory_;
  PlaneMemory pinned_memory_;
  // Declared before the slots so that they are destroyed after them: the destructor's
  // stream synchronization must come before the pools free their buffers.
  Pools device_pools_;
  Pools pinned_pools_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::int64_t bytes_uploaded_ = 0;  // the graph's thread alone
  std::int64_t bytes_downloaded_ = 0;
};

}  // namespace

namespace cuda {

std::unique_ptr<FrameSlots> make_frame_slots(int ordinal, int slots, int nodes) {
  return std::make_unique<CudaFrameSlots>(ordinal, slots, nodes);
}

}  // namespace cuda

}  // namespace fp
