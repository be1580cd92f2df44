// A real `framepipe serve` for a test: started on a free loopback port (--listen
// 127.0.0.1:0; the port read from its "listening on" line, used once it says "ready:"), with its own folder for
// templates, outputs and state, and stopped (SIGTERM, then SIGKILL) when the test ends.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/service/curl_client.hpp"

namespace fp::test {

// A light template: an endless or short testsrc through one CPU stage into '{stream}.mkv',
// paced at its frame rate (realtime: true) as a camera sends: unpaced, an endless testsrc
// takes every core it can, which serve's admission counts against the other streams.
extern const char* const kSmoothTemplate;

struct ServeOptions {
  std::map<std::string, std::string> templates = {{"smooth", kSmoothTemplate}};  // stem -> YAML
  std::vector<std::string> extra_args;  // e.g. --max-streams 1, --token-file F
  int drain_timeout = 20;               // seconds
  // --output-root, relative to dir() (the server's working directory); "": none given, so
  // that serve's own default is used.
  std::string output_root = "out";
  // Wait for its "ready:" line too (the state file's streams and the stream list in force,
  // changes taken); false: only until it listens (a test of what it answers meanwhile).
  bool wait_ready = true;
};

class ServeProcess {
 public:
  // Starts the server and waits (bounded) for its "listening on" and "ready:" lines; a server that exits
  // or never says it fails the test (ready() is false then, with the log in failure()).
  ServeProcess(const std::string& test_name, ServeOptions options = {});
  ~ServeProcess();

  bool ready() const { return port_ > 0; }
  std::string failure() const;  // why it is not ready, with its output
  int port() const { return port_; }
  std::string url(const std::string& path) const;
  const std::filesystem::path& dir() const { return dir_.path(); }
  std::filesystem::path outputs() const { return dir_ / "out"; }
  BackgroundRun& process() { return *run_; }
  std::string log() const { return run_->output(); }

 private:
  TempDir dir_;
  std::unique_ptr<BackgroundRun> run_;
  int port_ = 0;
};

// The args of `framepipe serve` as ServeProcess passes them, for tests that start it
// themselves (bad options): the template files written into `dir`.
std::vector<std::string> write_templates(const std::filesystem::path& dir, const std::map<std::string, std::string>& templates);

// A raw video of `frames` flat frames, each a shade lighter, as a y4m stream (4:2:0, even sizes).
std::string grey_y4m(int width, int height, int frames);

// GET /v1/streams/NAME answers 200: the stream is there.
bool listed(const ServeProcess& server, const std::string& name);

// PUT /v1/streams/NAME with `body`, by curl.
HttpReply put_stream(const ServeProcess& server, const std::string& name, const nlohmann::json& body);

}  // namespace fp::test
