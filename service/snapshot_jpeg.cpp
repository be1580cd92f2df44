#include "service/snapshot_jpeg.hpp"

#include "service/json_response.hpp"

#if __has_include("media/jpeg_encoder.hpp")
#include "media/jpeg_encoder.hpp"
#define FRAMEPIPE_HAS_JPEG_ENCODER 1
#endif

namespace fp::service {

std::string snapshot_jpeg(const Frame& frame) {
#ifdef FRAMEPIPE_HAS_JPEG_ENCODER
  const auto bytes = encode_jpeg(frame);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
#else
  (void)frame;
  throw HttpError(501, "snapshots need the JPEG encoder (media/jpeg_encoder.hpp), which this build lacks");
#endif
}

}  // namespace fp::service
