// What an orchestrator and an operator ask of the process as a whole: /livez, /readyz,
// /v1/info, /v1/pipelines, and POST /v1/drain.
#pragma once

#include "service/http_server.hpp"
#include "service/service_context.hpp"

namespace fp::service {

void add_probe_routes(HttpServer& server, ServiceContext& context);

}  // namespace fp::service
