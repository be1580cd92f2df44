// A host I420 frame (StreamManager::frame) as JPEG bytes, for GET .../snapshot.jpg.
#pragma once

#include <string>

#include "core/frame.hpp"

namespace fp::service {

// Throws HttpError 501 in a build without the JPEG encoder (media/jpeg_encoder.hpp).
std::string snapshot_jpeg(const Frame& frame);

}  // namespace fp::service
