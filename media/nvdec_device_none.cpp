// NvdecDevice in a build without CUDA: there is none.
#include "media/media_error.hpp"
#include "media/nvdec_device.hpp"

namespace fp {

std::unique_ptr<NvdecDevice> open_nvdec_device(int /*ordinal*/) {
  throw MediaError("this framepipe was built without CUDA");
}

}  // namespace fp
