#include "service/listen_address.hpp"

#include <fmt/format.h>

#include <charconv>
#include <stdexcept>

namespace fp::service {

namespace {

[[noreturn]] void reject(const std::string& option, const std::string& text, const std::string& reason) {
  throw std::invalid_argument(fmt::format("{} {}: {}", option, text, reason));
}

}  // namespace

bool ListenAddress::loopback() const {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

std::string ListenAddress::to_string() const {
  return host.find(':') != std::string::npos ? fmt::format("[{}]:{}", host, port) : fmt::format("{}:{}", host, port);
}

ListenAddress parse_listen_address(const std::string& text, const std::string& option) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) reject(option, text, "expected HOST:PORT (e.g. 127.0.0.1:8080)");
  ListenAddress address;
  address.host = text.substr(0, colon);
  if (address.host.size() >= 2 && address.host.front() == '[' && address.host.back() == ']')
    address.host = address.host.substr(1, address.host.size() - 2);
  else if (address.host.find(':') != std::string::npos)
    reject(option, text, "an IPv6 address goes in brackets: [::1]:8080");
  if (address.host.empty()) address.host = "0.0.0.0";
  const std::string port = text.substr(colon + 1);
  const auto [end, error] = std::from_chars(port.data(), port.data() + port.size(), address.port);
  if (port.empty() || error != std::errc() || end != port.data() + port.size() || address.port < 0 ||
      address.port > 65535)
    reject(option, text, "the port must be a number from 0 to 65535");
  return address;
}

}  // namespace fp::service
