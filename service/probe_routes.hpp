// What an orchestrator asks of the process: /livez and /readyz. They answer GET and HEAD
// without the token, on the API's listener and on --probe-listen's.
#pragma once

#include "service/http_server.hpp"
#include "service/service_context.hpp"

namespace fp::service {

void add_probe_routes(HttpServer& server, ServiceContext& context);

}  // namespace fp::service
