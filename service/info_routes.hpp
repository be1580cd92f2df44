// What an operator asks of the process as a whole: /v1/info, /v1/pipelines, and POST /v1/drain.
#pragma once

#include "service/http_server.hpp"
#include "service/service_context.hpp"

namespace fp::service {

void add_info_routes(HttpServer& server, ServiceContext& context);

}  // namespace fp::service
