// The CUDA device that FFmpeg's NVDEC hwaccel decodes on, one per source. It is the GPU's
// primary context, the one framepipe's kernels run in, so a decoded frame is a device
// buffer that the first stage reads where it lies. FFmpeg copies each picture out of the
// decoder on this device's stream (`AVCUDADeviceContext::stream`; left unset it would be
// the legacy default stream, which waits for every other stream's work): mark_written()
// records an event there, which a reader's stream waits for (Frame::ready).
#pragma once

#include <memory>

struct AVBufferRef;

namespace fp {

class NvdecDevice {
 public:
  virtual ~NvdecDevice() = default;
  // FFmpeg's AVHWDeviceContext (AV_HWDEVICE_TYPE_CUDA); take a reference to keep it.
  virtual AVBufferRef* context() const = 0;
  virtual int ordinal() const = 0;
  // An event recorded now on FFmpeg's copy stream, for Frame::ready: it completes once
  // every frame FFmpeg has returned so far is written. Call on the decoding thread, right
  // after a frame came out. The event is reused once the last holder lets it go.
  virtual std::shared_ptr<void> mark_written() = 0;
};

// Throws MediaError saying why when the GPU cannot be opened (no such ordinal, no driver)
// or this framepipe was built without CUDA.
std::unique_ptr<NvdecDevice> open_nvdec_device(int ordinal);

}  // namespace fp
