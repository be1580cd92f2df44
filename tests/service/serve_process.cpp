#include "tests/service/serve_process.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <regex>
#include <thread>

#include "tests/time_bound.hpp"

namespace fp::test {

const char* const kSmoothTemplate = R"(device: cpu
realtime: true
input: testsrc://64x48@30?frames=0
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: '{stream}.mkv'}
)";

std::vector<std::string> write_templates(const std::filesystem::path& dir,
                                         const std::map<std::string, std::string>& templates) {
  std::vector<std::string> files;
  for (const auto& [name, yaml] : templates) {
    const auto file = dir / (name + ".yaml");
    std::ofstream(file) << yaml;
    files.push_back(file.string());
  }
  return files;
}

ServeProcess::ServeProcess(const std::string& test_name, ServeOptions options) : dir_("serve-" + test_name) {
  std::filesystem::create_directories(dir_ / "out");
  std::vector<std::string> args = {"serve"};
  for (const auto& file : write_templates(dir_.path(), options.templates)) args.push_back(file);
  for (const auto& a : {"--listen", "127.0.0.1:0", "--device", "cpu"}) args.push_back(a);
  args.push_back("--drain-timeout");
  args.push_back(std::to_string(options.drain_timeout));
  if (!options.output_root.empty()) {
    args.push_back("--output-root");
    args.push_back((dir_ / options.output_root).lexically_normal().string());
  }
  args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
  run_ = std::make_unique<BackgroundRun>(dir_.path(), args);
  static const std::regex listening(R"(framepipe serve: listening on http://127\.0\.0\.1:([0-9]+))");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(30));
  while (std::chrono::steady_clock::now() < deadline && run_->alive()) {
    std::smatch m;
    const std::string out = run_->output();
    if (std::regex_search(out, m, listening) &&
        (!options.wait_ready || out.find("framepipe serve: ready:") != std::string::npos)) {
      port_ = std::stoi(m[1]);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

ServeProcess::~ServeProcess() {
  if (run_->alive()) {
    run_->signal(SIGTERM);
    const int code = run_->wait(time_bound(25)).first;
    if (code == -1) run_->signal(SIGKILL);
    // A server that a test leaves running drains and exits 0. Checked because the sanitizer
    // runs report at exit (LeakSanitizer's leaks, a use-after-free in teardown) by the exit
    // code alone: without this the asan step would never see them.
    if (code != 0)
      ADD_FAILURE() << "framepipe serve exited " << (code == -1 ? std::string("not at all") : std::to_string(code))
                    << " after SIGTERM at the test's end:\n" << run_->output();
  }
}

std::string ServeProcess::failure() const {
  return "framepipe serve did not say where it listens; its output:\n" + run_->output();
}

std::string ServeProcess::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + path;
}

std::string grey_y4m(int width, int height, int frames) {
  std::string video = "YUV4MPEG2 W" + std::to_string(width) + " H" + std::to_string(height) + " F30:1 Ip A1:1 C420jpeg\n";
  const std::size_t frame_bytes = static_cast<std::size_t>(width) * height * 3 / 2;
  for (int i = 0; i < frames; ++i) video += "FRAME\n" + std::string(frame_bytes, static_cast<char>(16 + 8 * i));
  return video;
}

bool listed(const ServeProcess& server, const std::string& name) {
  return curl("GET", server.url("/v1/streams/" + name)).status == 200;
}

HttpReply put_stream(const ServeProcess& server, const std::string& name, const nlohmann::json& body) {
  return curl_with_body("PUT", server.url("/v1/streams/" + name), body.dump());
}

}  // namespace fp::test
