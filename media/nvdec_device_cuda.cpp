// NvdecDevice on a CUDA build: FFmpeg's CUDA device on the primary context, with a
// non-blocking stream of its own and a pool of events that mark decoded frames written.
#include <cuda_runtime.h>

#include <mutex>
#include <string>
#include <vector>

#include "media/ffmpeg_raii.hpp"
#include "media/media_error.hpp"
#include "media/nvdec_device.hpp"

extern "C" {
#include <libavutil/hwcontext.h>
#include <libavutil/hwcontext_cuda.h>
}

namespace fp {

namespace {

std::string gpu_name(int ordinal) { return "cuda:" + std::to_string(ordinal); }

void check(cudaError_t status, int ordinal, const char* what) {
  if (status != cudaSuccess)
    throw MediaError("NVDEC on " + gpu_name(ordinal) + ": " + what + ": " + cudaGetErrorString(status));
}

// Events are created once and reused: creating one per frame would cost a driver call
// each. An event goes back to the pool when the last frame holding it is released, which
// the executor does only after the work that waited on it completed.
class EventPool : public std::enable_shared_from_this<EventPool> {
 public:
  explicit EventPool(int ordinal) : ordinal_(ordinal) {}
  ~EventPool() {
    for (cudaEvent_t event : free_) cudaEventDestroy(event);
  }

  std::shared_ptr<void> take() {
    cudaEvent_t event = nullptr;
    {
      std::lock_guard lock(mutex_);
      if (!free_.empty()) {
        event = free_.back();
        free_.pop_back();
      }
    }
    if (event == nullptr) check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), ordinal_, "cudaEventCreate");
    return {static_cast<void*>(event), [pool = shared_from_this()](void* e) {
              std::lock_guard lock(pool->mutex_);
              pool->free_.push_back(static_cast<cudaEvent_t>(e));
            }};
  }

 private:
  int ordinal_;
  std::mutex mutex_;
  std::vector<cudaEvent_t> free_;
};

// The context current on this thread (the primary context of the device cudaSetDevice
// chose), through the driver's entry point: linking libcuda itself would keep every
// program of the build from starting on a machine without a driver (CI).
CUcontext current_context(int ordinal) {
  using GetCurrent = CUresult (*)(CUcontext*);
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  check(cudaGetDriverEntryPointByVersion("cuCtxGetCurrent", &function, 4000, cudaEnableDefault, &found), ordinal,
        "cannot reach the driver");
  if (found != cudaDriverEntryPointSuccess || function == nullptr)
    throw MediaError("NVDEC on " + gpu_name(ordinal) + ": the driver lacks cuCtxGetCurrent");
  CUcontext context = nullptr;
  if (reinterpret_cast<GetCurrent>(function)(&context) != CUDA_SUCCESS || context == nullptr)
    throw MediaError("NVDEC on " + gpu_name(ordinal) + ": no current CUDA context");
  return context;
}

class CudaNvdecDevice final : public NvdecDevice {
 public:
  explicit CudaNvdecDevice(int ordinal) : ordinal_(ordinal), events_(std::make_shared<EventPool>(ordinal)) {
    int count = 0;
    check(cudaGetDeviceCount(&count), ordinal, "no usable GPU");
    if (ordinal < 0 || ordinal >= count)
      throw MediaError("NVDEC on " + gpu_name(ordinal) + ": no such GPU (" + std::to_string(count) + " found)");
    check(cudaSetDevice(ordinal), ordinal, "cudaSetDevice");
    check(cudaFree(nullptr), ordinal, "cannot start the GPU's context");

    // FFmpeg is handed the context itself: asked to open the primary context on its own, it
    // insists on its scheduling flags (blocking sync) and refuses one that is already
    // active with the runtime's defaults ("Operation not supported").
    CUcontext primary = current_context(ordinal);
    device_.reset(av_hwdevice_ctx_alloc(AV_HWDEVICE_TYPE_CUDA));
    if (!device_) throw MediaError("NVDEC on " + gpu_name(ordinal) + ": out of memory", AVERROR(ENOMEM));
    auto* context = reinterpret_cast<AVHWDeviceContext*>(device_->data);
    static_cast<AVCUDADeviceContext*>(context->hwctx)->cuda_ctx = primary;

    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), ordinal, "cudaStreamCreate");
    // The context owns the stream from here: frames still held after the source is gone
    // keep the context, and with it the stream, alive; its free callback destroys the
    // stream last. (The primary context is the runtime's: FFmpeg does not release it.)
    static_cast<AVCUDADeviceContext*>(context->hwctx)->stream = stream;
    context->user_opaque = stream;
    context->free = [](AVHWDeviceContext* c) { cudaStreamDestroy(static_cast<cudaStream_t>(c->user_opaque)); };
    stream_ = stream;
    if (const int ret = av_hwdevice_ctx_init(device_.get()); ret < 0)
      throw MediaError("NVDEC on " + gpu_name(ordinal) + ": FFmpeg cannot use the GPU: " + av_error_text(ret), ret);
  }

  AVBufferRef* context() const override { return device_.get(); }
  int ordinal() const override { return ordinal_; }

  std::shared_ptr<void> mark_written() override {
    check(cudaSetDevice(ordinal_), ordinal_, "cudaSetDevice");
    auto event = events_->take();
    check(cudaEventRecord(static_cast<cudaEvent_t>(event.get()), stream_), ordinal_, "cudaEventRecord");
    return event;
  }

 private:
  int ordinal_;
  std::shared_ptr<EventPool> events_;
  ff::BufferRefPtr device_;
  cudaStream_t stream_ = nullptr;
};

}  // namespace

std::unique_ptr<NvdecDevice> open_nvdec_device(int ordinal) { return std::make_unique<CudaNvdecDevice>(ordinal); }

}  // namespace fp
