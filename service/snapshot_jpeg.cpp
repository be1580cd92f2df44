#include "service/snapshot_jpeg.hpp"

#include "media/jpeg_encoder.hpp"

namespace fp::service {

std::string snapshot_jpeg(const Frame& frame) { return encode_jpeg(frame, 80); }

}  // namespace fp::service
