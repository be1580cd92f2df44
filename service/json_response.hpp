// How every answer of the API is written: JSON bodies, and errors as
// {"error": "...", "status": N} (with any extra keys, e.g. "max_streams"). Every message goes
// through mask_uris_in_text: a credential in an error cannot reach a client.
#pragma once

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace fp::service {

// A request the HTTP layer itself refuses (a bad name, bad JSON): the status and the message.
class HttpError : public std::runtime_error {
 public:
  HttpError(int status, const std::string& message, nlohmann::json extra = nlohmann::json::object())
      : std::runtime_error(message), status_(status), extra_(std::move(extra)) {}
  int status() const { return status_; }
  const nlohmann::json& extra() const { return extra_; }

 private:
  int status_;
  nlohmann::json extra_;
};

void send_json(httplib::Response& res, int status, const nlohmann::json& body);
void send_error(httplib::Response& res, int status, const std::string& message,
                const nlohmann::json& extra = nlohmann::json::object());

}  // namespace fp::service
