// A loopback port nobody uses now, for a test server or receiver to bind.
#pragma once

namespace fp::test {

// The kernel picks a free port for a socket of `socket_type` (SOCK_STREAM or SOCK_DGRAM), which
// is closed again and the port returned. Another process could take it in between; on a test
// machine's loopback that is rare, and the server then fails to start with a clear message
// rather than a wrong result. Throws std::runtime_error when no socket can be bound.
int free_loopback_port(int socket_type);

}  // namespace fp::test
