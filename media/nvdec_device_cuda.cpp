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

class CudaNvdecDevice final : public NvdecDevice {
 public:
  explicit CudaNvdecDevice(int ordinal) : ordinal_(ordinal), events_(std::make_shared<EventPool>(ordinal)) {
    int count = 0;
    check(cudaGetDeviceCount(&count), ordinal, "no usable GPU");
    if (ordinal < 0 || ordinal >= count)
      throw MediaError("NVDEC on " + gpu_name(ordinal) + ": no such GPU (" + std::to_string(count) + " found)");
    check(cudaSetDevice(ordinal), ordinal, "cudaSetDevice");
    check(cudaFree(nullptr), ordinal, "cannot start the GPU's context");

    AVDictionary* options = nullptr;
    av_dict_set(&options, "primary_ctx", "1", 0);  // framepipe's kernels run in the primary context
    AVBufferRef* device = nullptr;
    const int ret = av_hwdevice_ctx_create(&device, AV_HWDEVICE_TYPE_CUDA, std::to_string(ordinal).c_str(), options, 0);
    av_dict_free(&options);
    if (ret < 0) throw MediaError("NVDEC on " + gpu_name(ordinal) + ": FFmpeg cannot open the GPU: " + av_error_text(ret), ret);
    device_.reset(device);

    cudaStream_t stream = nullptr;
    check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), ordinal, "cudaStreamCreate");
    auto* context = reinterpret_cast<AVHWDeviceContext*>(device_->data);
    // FFmpeg reads the stream when a decoder starts, which is later. The context owns it
    // from here: frames still held after the source is gone keep the context, and with it
    // the stream, alive; its free callback destroys the stream last.
    static_cast<AVCUDADeviceContext*>(context->hwctx)->stream = stream;
    context->user_opaque = stream;
    context->free = [](AVHWDeviceContext* c) { cudaStreamDestroy(static_cast<cudaStream_t>(c->user_opaque)); };
    stream_ = stream;
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
