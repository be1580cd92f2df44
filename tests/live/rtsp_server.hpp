// A real RTSP server for tests: tests/live/rtsp_server.py (GStreamer's rtsp-server through
// python3-gi) on a free loopback port, sending H.264 in real time. It can be killed
// (SIGKILL, as a camera that loses power) and started again on the same port, with the same
// or other settings.
#pragma once

#include <sys/types.h>

#include <string>

namespace fp::test {

struct RtspServerOptions {
  std::string path = "/stream";
  int width = 320;
  int height = 240;
  int fps = 25;
  int frames = -1;  // per client, then the stream ends; -1: endless
  std::string user;  // non-empty: basic authentication with `password`
  std::string password;
  // Non-empty: the server records what a client publishes to `path`, as raw H.264 in this
  // file, instead of sending (see rtsp_server.py --record).
  std::string record_to;
};

class RtspServer {
 public:
  // "" when the server can run here, else why not (python3-gi, gst-rtsp-server or the
  // GStreamer plugins missing: tools/setup.sh installs them). Asked once per process.
  static std::string unavailable_reason();

  // Picks a free port and starts the server; throws std::runtime_error when it does not
  // listen within 10 s.
  explicit RtspServer(RtspServerOptions options = {});
  ~RtspServer();
  RtspServer(const RtspServer&) = delete;
  RtspServer& operator=(const RtspServer&) = delete;

  void kill();  // SIGKILL, and waits for the process to end
  void start();  // on the same port; throws when it does not listen within 10 s
  void start(RtspServerOptions options);
  int port() const { return port_; }
  // rtsp://127.0.0.1:PORT/path, with `user:password@` when given.
  std::string uri(const std::string& user = "", const std::string& password = "") const;

 private:
  RtspServerOptions options_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// Skips the test when the server cannot run here.
#define FP_REQUIRE_RTSP_SERVER()                                                            \
  do {                                                                                      \
    if (const auto reason = ::fp::test::RtspServer::unavailable_reason(); !reason.empty()) \
      GTEST_SKIP() << reason;                                                               \
  } while (0)

}  // namespace fp::test
