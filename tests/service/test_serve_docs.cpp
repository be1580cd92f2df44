// README's "Run as a service", run: every command of its ```sh blocks, in order, in a folder
// of its own — each documented `framepipe serve` started (on a free port, on the CPU) and
// every curl sent to it — so the examples cannot rot. What this machine lacks is replaced:
// a camera's rtsp:// URI by a testsrc://, localhost:8080 by the server's real port, and the
// reader's token file is written first. test_doc_commands leaves these commands to this test.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <csignal>
#include <fstream>
#include <regex>
#include <thread>

#include "tests/e2e/doc_fences.hpp"
#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

// The README's own lines, one command each, with where they are.
std::vector<DocCommand> service_section_commands() {
  const fs::path readme = fs::path(FRAMEPIPE_SOURCE_DIR) / "README.md";
  std::ifstream in(readme);
  int first = 0, last = 1 << 30, number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line == "## Run as a service") first = number;
    else if (first > 0 && number > first && line.rfind("## ", 0) == 0 && last == 1 << 30) last = number;
  }
  std::vector<DocCommand> commands;
  for (const auto& fence : read_fences(readme, "README.md").fences) {
    if (fence.language != "sh" || fence.lines.empty()) continue;
    if (fence.lines.front().number < first || fence.lines.front().number > last) continue;
    for (auto& command : shell_commands(fence)) commands.push_back(std::move(command));
  }
  return commands;
}

// Runs a shell command line in `cwd`: its exit code and output.
std::pair<int, std::string> shell(const std::string& line, const fs::path& cwd) {
  setenv("FP_DOC_SCRIPT", ("cd '" + cwd.string() + "' && " + line + " 2>&1").c_str(), 1);
  FILE* pipe = popen("bash -c \"$FP_DOC_SCRIPT\"", "r");
  std::string out;
  std::array<char, 4096> buffer{};
  for (std::size_t n; pipe != nullptr && (n = fread(buffer.data(), 1, buffer.size(), pipe)) > 0;)
    out.append(buffer.data(), n);
  const int status = pipe != nullptr ? pclose(pipe) : -1;
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// The words bash makes of `line` (quotes removed, $(...) expanded).
std::vector<std::string> words_of(const std::string& line, const fs::path& cwd) {
  const auto [code, out] = shell("printf '%s\\0' " + line, cwd);
  std::vector<std::string> words;
  for (std::size_t start = 0, end; code == 0 && (end = out.find('\0', start)) != std::string::npos; start = end + 1)
    words.push_back(out.substr(start, end - start));
  return words;
}

TEST(ServeDocs, EveryServiceExampleRuns) {
  const auto commands = service_section_commands();
  ASSERT_GE(commands.size(), 8u) << "README.md's \"Run as a service\" examples were not found";
  TempDir dir("serve-docs");
  fs::create_directory_symlink(fs::path(FRAMEPIPE_SOURCE_DIR) / "config", dir / "config");
  std::ofstream(dir / "token") << "doc-example-token\n";  // the reader's own token file
  std::unique_ptr<BackgroundRun> server;
  int port = 0;
  int servers = 0, curls = 0;
  const auto wait_for_end = [&](const std::string& where) {
    if (!server) return;
    const auto [code, seconds] = server->wait(time_bound(30));
    EXPECT_EQ(code, 0) << where << ": the documented server did not end with 0 after its drain:\n" << server->output();
    EXPECT_EQ(server->output().find("pass@"), std::string::npos) << server->output();
    server.reset();
  };
  for (const auto& command : commands) {
    std::string text = command.text;
    const auto serve_at = text.find("framepipe serve ");
    if (serve_at != std::string::npos) {
      ASSERT_FALSE(server && server->alive()) << command.where << ": the previous example's server still runs";
      // `mkdir -p ... &&` first, then the server in the background on a free port.
      const auto and_at = text.rfind("&&", serve_at);
      if (and_at != std::string::npos) {
        const auto [code, out] = shell(text.substr(0, and_at), dir.path());
        ASSERT_EQ(code, 0) << command.where << ": " << out;
        text = text.substr(and_at + 2);
      }
      auto words = words_of(text, dir.path());
      ASSERT_GE(words.size(), 3u) << command.where;
      words.erase(words.begin());  // the binary: the one under test runs instead
      bool listen = false;
      for (std::size_t i = 1; i < words.size(); ++i)
        if (words[i - 1] == "--listen") {
          words[i] = std::regex_replace(words[i], std::regex(":[0-9]+$"), ":0");
          listen = true;
        }
      if (!listen) words.insert(words.end(), {"--listen", "127.0.0.1:0"});
      words.insert(words.end(), {"--device", "cpu"});
      fs::remove(dir / "framepipe.log");  // the previous server's, which said another port
      server = std::make_unique<BackgroundRun>(dir.path(), words);
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(30));
      std::smatch m;
      std::string out;
      static const std::regex listening(R"(listening on http://[^:]+:([0-9]+))");
      // Its port once it is ready (the state file's streams and the stream list in force).
      while (!(std::regex_search(out = server->output(), m, listening) &&
               out.find("framepipe serve: ready:") != std::string::npos) &&
             server->alive() &&
             std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      ASSERT_FALSE(m.empty()) << command.where << ": `" << command.text << "` did not start:\n" << out;
      port = std::stoi(m[1]);
      ++servers;
      continue;
    }
    if (text.rfind("curl ", 0) == 0) {
      ASSERT_TRUE(server) << command.where << ": a curl example with no server started before it";
      text = std::regex_replace(text, std::regex("localhost:8080"), "127.0.0.1:" + std::to_string(port));
      text = std::regex_replace(text, std::regex(R"(rtsp://[^"' ]*)"), "testsrc://160x120@30?noise=10&frames=0");
      // A stream removed at once may be stopped before its first frame (a sanitizer build
      // starts slowly), and a Matroska file without a frame does not open (FFmpeg writes no
      // readable one): before the example removes it, the stream has had a frame, as a
      // camera would have by the time a reader removes it; its output is checked below.
      static const std::regex removal(R"re(DELETE \S*/v1/streams/([A-Za-z0-9_-]+)|stream/remove.*"camera_id": "([^"]+)")re");
      if (std::smatch r; std::regex_search(text, r, removal)) {
        const std::string name = r[1].matched ? r[1].str() : r[2].str();
        const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1/streams/" + name;
        const auto frames_deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(20));
        const auto frames = [&] {
          const auto body = curl("GET", url).json();
          return body.is_object() ? body.value("frames", 0LL) : 0LL;
        };
        while (frames() == 0 && std::chrono::steady_clock::now() < frames_deadline)
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      const std::string run = "curl -sS --fail-with-body --max-time 20 " + text.substr(5);
      // A snapshot of a stream that has only just started may find no frame yet: a few tries.
      std::pair<int, std::string> result;
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(15));
      do {
        result = shell(run, dir.path());
      } while (result.first != 0 && std::chrono::steady_clock::now() < deadline &&
               (std::this_thread::sleep_for(std::chrono::milliseconds(200)), true));
      EXPECT_EQ(result.first, 0) << command.where << ": `" << command.text << "`\n  ran: " << run << "\n"
                                 << result.second << "\nserver:\n" << server->output();
      ++curls;
      if (text.find("/v1/drain") != std::string::npos) wait_for_end(command.where);
      continue;
    }
    if (text.find("framepipe run ") != std::string::npos) continue;  // tests/e2e/test_doc_commands runs it
    ADD_FAILURE() << command.where << ": `" << command.text
                  << "` is neither `framepipe serve` nor curl: this test does not know how to run it";
  }
  if (server && server->alive()) {
    ADD_FAILURE() << "the last documented server was never drained";
    server->signal(SIGTERM);
    server->wait(time_bound(30));
  }
  EXPECT_EQ(servers, 3);  // the API one, the metrics one, the stream list one
  EXPECT_GE(curls, 8);
  // What the examples made: the snapshot, and the removed streams' finalized outputs.
  EXPECT_GT(fs::exists(dir / "cam1.jpg") ? fs::file_size(dir / "cam1.jpg") : 0u, 100u);
  EXPECT_GT(count_frames(dir / "recordings" / "cam1.mkv"), 0);
  EXPECT_GT(count_frames(dir / "recordings" / "door.mkv"), 0);
}

// README's stream list (a ```yaml block of the service section): every stream in it is
// accepted as written by a real serve with the template it names (an unknown decode or set
// parameter would be listed in stream_list.rejected).
TEST(ServeDocs, TheStreamListExampleIsAccepted) {
  const fs::path readme = fs::path(FRAMEPIPE_SOURCE_DIR) / "README.md";
  std::vector<std::string> lists;
  for (const auto& fence : read_fences(readme, "README.md").fences) {
    if (fence.language != "yaml" || fence.lines.empty() || fence.lines.front().text != "streams:") continue;
    std::string text;
    for (const auto& line : fence.lines) text += line.text + "\n";
    lists.push_back(text);
  }
  ASSERT_EQ(lists.size(), 1u) << "README.md's stream list example (a yaml block starting with streams:) was not found";
  std::ifstream template_file(fs::path(FRAMEPIPE_SOURCE_DIR) / "config" / "serve_denoise.yaml");
  const std::string denoise((std::istreambuf_iterator<char>(template_file)), std::istreambuf_iterator<char>());
  TempDir dir("serve-docs-list");
  std::ofstream(dir / "cams.yaml") << lists.front();
  ServeOptions options;
  options.templates = {{"serve_denoise", denoise}};
  options.extra_args = {"--stream-list", (dir / "cams.yaml").string()};
  ServeProcess serve("serve-docs-list", options);
  ASSERT_TRUE(serve.ready()) << serve.failure();
  const auto info = curl("GET", serve.url("/v1/info")).json();
  ASSERT_TRUE(info.contains("stream_list")) << info.dump();
  EXPECT_EQ(info["stream_list"]["rejected"], nlohmann::json::object()) << info.dump(2);
  EXPECT_GE(info["stream_list"]["assigned"].get<int>(), 2) << info.dump(2);
}

}  // namespace
}  // namespace fp::test
