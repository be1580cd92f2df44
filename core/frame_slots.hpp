// Frames in flight. The executor runs frame n in slot n mod count(): it waits until that
// slot's previous frame is complete, brings the new source frames to the device, enqueues
// every stage, hands sinks host copies, and submits — so while frame n runs on the GPU,
// frame n+1 is uploaded and enqueued and frame n-1 is encoded.
//
// On the CPU there is one slot and everything happens in the calls themselves. On CUDA each
// slot owns a stream; uploads, kernels and downloads are asynchronous in stream order, and
// the host waits only in wait(), on the slot's event.
//
// The interface lives in core/ (as FrameOp does) so that each backend implements it beside
// its own code: cpu/host_frame_slots, cuda/frame_slots; stages/frame_slots_for chooses.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "core/frame.hpp"
#include "core/frame_context.hpp"

namespace fp {

class FrameSlots {
 public:
  virtual ~FrameSlots() = default;

  virtual int count() const = 0;
  virtual FrameContext& context(int slot) = 0;

  // A source's frame as the stages take it: itself on the CPU; on CUDA a pooled device frame
  // that the upload fills on the slot's stream. Without `with_chroma` (no stage reads the
  // chroma) only the luma goes up: a host frame's chroma planes stay empty on the device,
  // and a device frame in NV12 (NVDEC's) keeps its interleaved chroma; with it, that is
  // split into I420 planes.
  virtual Frame to_device(const Frame& frame, int slot, bool with_chroma) = 0;
  // A host frame: itself when it is on the host; otherwise a pooled page-locked frame that
  // the download fills on the slot's stream, readable after wait(slot).
  virtual Frame to_host(const Frame& frame, int slot) = 0;
  // One plane (0: Y, 1: U, 2: V) of a frame, as to_host does for the whole frame; plane 1
  // of an NV12 frame is its interleaved chroma, which comes down as it is.
  virtual Plane plane_to_host(const Frame& frame, int plane, int slot) = 0;
  // Bytes copied so far host -> device and device -> host (the pixels of every plane
  // copied; 0 on the CPU). Read on the graph's thread.
  virtual std::int64_t bytes_uploaded() const = 0;
  virtual std::int64_t bytes_downloaded() const = 0;

  // Bracket one stage's work for the frame in `slot`, to time it (host clock on the CPU,
  // CUDA events on the device). `node` is the stage's index in the graph.
  virtual void begin_stage(int slot, int node) = 0;
  virtual void end_stage(int slot, int node) = 0;

  // Everything for the slot's frame is enqueued.
  virtual void submit(int slot) = 0;
  // Blocks until the slot's submitted work is complete, then adds each bracketed stage's
  // milliseconds to stage_ms[node].
  virtual void wait(int slot, std::vector<double>& stage_ms) = 0;
  // Blocks until nothing enqueued on any slot is still running (errors are ignored: this is
  // for tear-down, before buffers that the device may use are released).
  virtual void wait_idle() noexcept = 0;
};

}  // namespace fp
