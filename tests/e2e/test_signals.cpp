// SIGINT/SIGTERM end framepipe promptly whatever it is doing — opening an input whose server
// accepts the connection and never answers, running, or draining — with exit code 130, and a
// second signal ends it at once. A silent server that nobody interrupts ends the open with a
// clear error after the network timeout, never a hang.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/cli_runner.hpp"

namespace fp::test {
namespace {

using Clock = std::chrono::steady_clock;

// A TCP server on a free loopback port that accepts every connection and then says nothing:
// a camera or web server that hangs after the handshake.
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
  int port() const { return port_; }

 private:
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
  std::vector<int> clients_;
};

// framepipe started in `dir` with `args`; the test signals it and waits for its end.
class Running {
 public:
  Running(const TempDir& dir, const std::vector<std::string>& args) {
    pid_ = fork();
    if (pid_ == 0) {
      if (chdir(dir.path().c_str()) != 0) _exit(99);
      const std::string bin = framepipe_binary();
      std::vector<char*> argv{const_cast<char*>(bin.c_str())};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(bin.c_str(), argv.data());
      _exit(98);
    }
  }
  ~Running() {
    if (pid_ > 0 && !ended_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  void signal(int sig) {
    kill(pid_, sig);
    signalled_at_ = Clock::now();
  }
  // Waits up to `limit` seconds; the exit code (-1: still running, killed; -2: killed by a
  // signal) and the seconds from the last signal to the end.
  std::pair<int, double> wait(double limit) {
    const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit));
    int status = 0;
    while (Clock::now() < deadline) {
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        ended_ = true;
        const double took = std::chrono::duration<double>(Clock::now() - signalled_at_).count();
        return {WIFEXITED(status) ? WEXITSTATUS(status) : -2, took};
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return {-1, limit};
  }
  bool alive() { return waitpid(pid_, nullptr, WNOHANG) == 0; }

 private:
  pid_t pid_ = -1;
  bool ended_ = false;
  Clock::time_point signalled_at_ = Clock::now();
};

constexpr const char* kPipeline = R"(input: testsrc://96x64@25?frames=0
stages:
  - {id: hist, type: luma_histogram, output: hist.jsonl}
  - {id: out, type: encode, output: out.mp4}
)";

void write_pipeline(const TempDir& dir) { std::ofstream(dir / "p.yaml") << kPipeline; }

// SIGTERM 1.5 s into the open of a server that never answers: gone within 2 s, exit 130.
void expect_prompt_stop_while_opening(const std::string& uri, int sig) {
  TempDir dir("signals-open");
  write_pipeline(dir);
  Running run(dir, {"run", "p.yaml", "-q", "-i", uri});
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_TRUE(run.alive()) << "framepipe ended before the signal; the test proves nothing";
  run.signal(sig);
  const auto [code, seconds] = run.wait(5.0);
  EXPECT_EQ(code, 130) << uri;
  EXPECT_LT(seconds, time_bound(2.0)) << uri;
}

TEST(Signals, SigtermWhileOpeningASilentRtspServer) {
  SilentServer server;
  expect_prompt_stop_while_opening("rtsp://127.0.0.1:" + std::to_string(server.port()) + "/stream", SIGTERM);
}

TEST(Signals, SigintWhileOpeningASilentHttpServer) {
  SilentServer server;
  expect_prompt_stop_while_opening("http://127.0.0.1:" + std::to_string(server.port()) + "/video.ts", SIGINT);
}

// Nobody interrupts: the open gives up after the network timeout with an error naming the
// URI (exit 1), and writes no output.
TEST(Signals, SilentServerTimesOutWithAClearError) {
  SilentServer server;
  TempDir dir("signals-timeout");
  write_pipeline(dir);
  const std::string uri = "rtsp://127.0.0.1:" + std::to_string(server.port()) + "/stream";
  const auto start = Clock::now();
  const auto result = run_framepipe({"run", "p.yaml", "-q", "-i", uri}, dir.path());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find(uri), std::string::npos) << result.output;
  EXPECT_LT(seconds, 15.0);
  EXPECT_FALSE(std::filesystem::exists(dir / "out.mp4"));
}

// Two signals in a row while frames flow: the second one ends the process at once, with the
// same exit code, instead of the default action (death by signal).
TEST(Signals, SecondSignalExitsAtOnce) {
  TempDir dir("signals-twice");
  std::ofstream(dir / "p.yaml") << "input: testsrc://640x360@25?noise=20&frames=0\n"
                                   "stages:\n"
                                   "  - {id: denoise, type: nlmeans}\n"
                                   "  - {id: out, type: encode, output: out.mp4}\n";
  Running run(dir, {"run", "p.yaml", "-q", "--device", "cpu"});
  for (int i = 0; i < 100 && !std::filesystem::exists(dir / "out.mp4"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  run.signal(SIGINT);
  // Two signals sent back to back may reach the process as one (a standard signal that is
  // still pending is not queued twice; ThreadSanitizer defers delivery, which makes that
  // likely): give the first one time to arrive, then measure from the second.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  run.signal(SIGINT);
  const auto [code, seconds] = run.wait(5.0);
  EXPECT_EQ(code, 130);
  EXPECT_LT(seconds, time_bound(1.0));
}

}  // namespace
}  // namespace fp::test
