#include "service/json_response.hpp"

#include "media/stream_uri.hpp"

namespace fp::service {

void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  // Invalid UTF-8 (a name or message from a file) is replaced rather than throwing midway.
  res.set_content(body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n", "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& message, const nlohmann::json& extra) {
  nlohmann::json body = {{"error", mask_uris_in_text(message)}, {"status", status}};
  for (const auto& [key, value] : extra.items()) body[key] = value;
  send_json(res, status, body);
}

}  // namespace fp::service
