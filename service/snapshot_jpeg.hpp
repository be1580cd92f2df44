// A host I420 frame (StreamManager::frame) as JPEG bytes, for GET .../snapshot.jpg.
#pragma once

#include <string>

#include "core/frame.hpp"

namespace fp::service {

// Quality 80: a thumbnail's worth. Throws MediaError ("jpeg: ...") as encode_jpeg does.
std::string snapshot_jpeg(const Frame& frame);

}  // namespace fp::service
