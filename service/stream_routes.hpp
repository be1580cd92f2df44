// /v1/streams: add or replace (PUT), look at (GET), remove (DELETE) one stream, list them,
// and a node's newest frame as JPEG.
#pragma once

#include <nlohmann/json.hpp>

#include "service/http_server.hpp"
#include "service/service_context.hpp"

namespace fp::service {

void add_stream_routes(HttpServer& server, ServiceContext& context);

// Adds or replaces a stream for any route (PUT /v1/streams/{name}, DeepStream's add): 503
// "draining" once a drain began, 503 "capacity" with "max_streams", else the manager's own
// refusal. Sets `status` to 201 (created) or 200 (replaced); returns the stream's JSON.
nlohmann::json put_stream(ServiceContext& context, const StreamSpec& spec, int& status);

}  // namespace fp::service
