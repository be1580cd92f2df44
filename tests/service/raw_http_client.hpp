// A client that sends exactly the bytes a test gives, from the loopback address it names:
// for what curl would never send (smuggled requests, broken framing, endless headers) and
// for floods from an address of their own (127.0.0.2) while the test probes from 127.0.0.1.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fp::test {

class RawConnection {
 public:
  // Connects from `from` (a 127.x.y.z address) to 127.0.0.1:port; connected() says whether it did.
  RawConnection(int port, const std::string& from = "127.0.0.1");
  ~RawConnection();
  RawConnection(RawConnection&& other) noexcept;
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;
  RawConnection& operator=(RawConnection&&) = delete;

  bool connected() const { return sock_ >= 0; }
  // Closes this connection and opens a new one, as the constructor does.
  void reconnect(int port, const std::string& from = "127.0.0.1");
  // Sends all of `bytes` (blocking, at most `seconds`); the bytes the server took before it
  // closed or stopped reading (less than all when it did).
  std::size_t send(std::string_view bytes, double seconds = 10);
  // Sends one byte without waiting; false once the server has closed.
  bool send_byte(char byte);
  // Everything the server sends until it closes the connection, or `seconds` pass; sets
  // closed() when it did close.
  std::string receive_until_closed(double seconds);
  bool closed() const { return closed_; }

 private:
  int sock_ = -1;
  bool closed_ = false;
};

// A request to delete stream cam1, sent after a head as its body or its further lines: a
// server that misreads the framing runs it as a request of its own.
inline const std::string kSmuggledDeleteOfCam1 =
    "DELETE /v1/streams/cam1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\r\n";

// How many HTTP answers `received` holds (status lines "HTTP/1.1 NNN" at a line's start).
int count_answers(std::string_view received);
// The status of the first answer in `received`; 0 when there is none.
int first_status(std::string_view received);

}  // namespace fp::test
