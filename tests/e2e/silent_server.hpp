// A TCP server on a free loopback port that accepts every connection and then says nothing:
// a camera or web server that hangs after the handshake.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "tests/time_bound.hpp"

namespace fp::test {

class SilentServer {
 public:
  SilentServer() {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 || listen(listener_, 8) != 0)
      throw std::runtime_error("cannot listen on loopback");
    socklen_t length = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] {
      while (!stopping_) {
        const int client = accept(listener_, nullptr, nullptr);
        if (client < 0) break;
        clients_.push_back(client);  // held open, never read or written
        accepted_.fetch_add(1);
      }
    });
  }
  ~SilentServer() {
    stopping_ = true;
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
    for (int c : clients_) close(c);
  }
  SilentServer(const SilentServer&) = delete;
  SilentServer& operator=(const SilentServer&) = delete;
  int port() const { return port_; }
  // Whether a client has connected within time_bound(seconds). A test that signals a
  // program "while it opens" waits for this first: a fixed sleep may end before a slow
  // (sanitized, loaded) program has even reached its open, and then tests something else.
  bool connected_within(double seconds) const {
    return eventually([this] { return accepted_.load() > 0; }, seconds);
  }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::vector<int> clients_;
  std::atomic<int> accepted_{0};
};

}  // namespace fp::test
