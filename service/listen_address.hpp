// Where `framepipe serve` listens: "HOST:PORT", "[IPv6]:PORT" or ":PORT" (all interfaces).
// Only a loopback address may be served without a token: anything else is reachable from
// other machines.
#pragma once

#include <string>

namespace fp::service {

struct ListenAddress {
  std::string host;  // as the socket layer takes it ("127.0.0.1", "::1", "0.0.0.0")
  int port = 0;      // 0: any free port (the one taken is printed at start)
  bool loopback() const;
  std::string to_string() const;  // "127.0.0.1:8080", "[::1]:8080"
};

// Throws std::invalid_argument "OPTION VALUE: REASON" (OPTION: the option it came from).
ListenAddress parse_listen_address(const std::string& text, const std::string& option = "--listen");

}  // namespace fp::service
