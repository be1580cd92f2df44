// DeepStream's REST contract (its REST server, as nvmultiurisrcbin serves it), so that tools
// that drive DeepStream drive framepipe:
//   POST /api/v1/stream/add     {"key": "sensor", "value": {"camera_id": "cam1",
//                                "camera_url": "rtsp://...", "change": "camera_add"}, "headers": {...}}
//   POST /api/v1/stream/remove  the same with "change": "camera_remove"
// camera_id is the stream's name; the template is the service's default pipeline (the first
// pipeline file given, or --deepstream-pipeline). Mapped onto the same calls as PUT/DELETE
// /v1/streams/{name}, with the same refusals.
#pragma once

#include "service/http_server.hpp"
#include "service/service_context.hpp"

namespace fp::service {

void add_deepstream_routes(HttpServer& server, ServiceContext& context);

}  // namespace fp::service
