#include "tests/live/rtsp_server.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "tests/live/loopback_port.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {

namespace {

// Not the first python3 on PATH: a virtual environment there may lack gi.
constexpr const char* kPython = "/usr/bin/python3";

std::string script_path() { return std::string(FRAMEPIPE_SOURCE_DIR) + "/tests/live/rtsp_server.py"; }

}  // namespace

std::string RtspServer::unavailable_reason() {
  static const std::string reason = [] {
    if (access(kPython, X_OK) != 0) return std::string("no /usr/bin/python3 (tools/setup.sh installs it)");
    const std::string check = std::string(kPython) +
                              " -c \"import gi; gi.require_version('Gst', '1.0'); "
                              "gi.require_version('GstRtspServer', '1.0'); "
                              "from gi.repository import Gst, GstRtspServer; Gst.init(None); "
                              "import sys; sys.exit(0 if all(Gst.ElementFactory.find(e) for e in "
                              "('videotestsrc', 'x264enc', 'rtph264pay', 'rtph264depay', 'h264parse')) else 1)\" "
                              ">/dev/null 2>&1";
    if (std::system(check.c_str()) != 0)
      return std::string(
          "GStreamer's RTSP server cannot run: python3-gi, gir1.2-gst-rtsp-server-1.0 or the plugins "
          "(base, good, bad, ugly: videotestsrc, x264enc, rtph264pay, rtph264depay, h264parse) are missing; "
          "tools/setup.sh installs them");
    return std::string();
  }();
  return reason;
}

RtspServer::RtspServer(RtspServerOptions options) : options_(std::move(options)), port_(free_loopback_port(SOCK_STREAM)) { start(); }

RtspServer::~RtspServer() { kill(); }

void RtspServer::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

void RtspServer::start(RtspServerOptions options) {
  options_ = std::move(options);
  start();
}

void RtspServer::start() {
  kill();
  std::vector<std::string> args = {kPython,
                                   script_path(),
                                   "--port",
                                   std::to_string(port_),
                                   "--path",
                                   options_.path,
                                   "--size",
                                   std::to_string(options_.width) + "x" + std::to_string(options_.height),
                                   "--fps",
                                   std::to_string(options_.fps),
                                   "--frames",
                                   std::to_string(options_.frames)};
  if (!options_.record_to.empty()) args.insert(args.end(), {"--record", options_.record_to});
  if (!options_.user.empty()) {
    args.insert(args.end(), {"--user", options_.user, "--password", options_.password});
  }
  std::vector<char*> argv;  // built before fork: the child only execs
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int out[2];
  if (pipe(out) != 0) throw std::runtime_error("pipe failed");
  pid_ = fork();
  if (pid_ == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execv(kPython, argv.data());
    _exit(98);
  }
  close(out[1]);
  // The script prints "listening on PORT" once its socket is bound. Bounded: a server that
  // neither listens nor fails within 10 s (scaled) is reported, never waited for.
  std::string said;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(time_bound(10.0)));
  while (said.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd fd{out[0], POLLIN, 0};
    if (left.count() <= 0 || poll(&fd, 1, static_cast<int>(left.count())) <= 0) break;
    char buffer[256];
    const ssize_t n = read(out[0], buffer, sizeof(buffer));
    if (n <= 0) break;  // the script ended (an error went to stderr)
    said.append(buffer, static_cast<std::size_t>(n));
  }
  close(out[0]);
  if (said.rfind("listening on", 0) != 0) {
    kill();
    throw std::runtime_error("the RTSP test server did not start on port " + std::to_string(port_) +
                             (said.empty() ? std::string() : ": " + said));
  }
}

std::string RtspServer::uri(const std::string& user, const std::string& password) const {
  const std::string credentials = user.empty() ? std::string() : user + ":" + password + "@";
  return "rtsp://" + credentials + "127.0.0.1:" + std::to_string(port_) + options_.path;
}

}  // namespace fp::test
