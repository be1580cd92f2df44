// README's "Run as a service", run: every command of its ```sh blocks, in order, in a folder
// of its own — each documented `framepipe serve` started (on a free loopback port, on the
// CPU) and every curl sent to it once — so the examples cannot rot. What this machine lacks
// is replaced: a camera's rtsp:// URI by a testsrc://, localhost:8080 by the server's real
// port, and the reader's token file is written first. test_doc_commands leaves exactly these
// commands to this test (tests/e2e/serve_docs_commands.hpp says which).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <csignal>
#include <fstream>
#include <regex>

#include "tests/e2e/doc_fences.hpp"
#include "tests/e2e/serve_docs_commands.hpp"
#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

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
      // A free port on the loopback, whatever address the example gives: its 0.0.0.0 (what a
      // reader serving other machines writes) would listen on every interface of the test
      // machine.
      bool listen = false;
      for (std::size_t i = 1; i < words.size(); ++i)
        if (words[i - 1] == "--listen") {
          words[i] = "127.0.0.1:0";
          listen = true;
        }
      if (!listen) words.insert(words.end(), {"--listen", "127.0.0.1:0"});
      words.insert(words.end(), {"--device", "cpu"});
      fs::remove(dir / "framepipe.log");  // the previous server's, which said another port
      server = std::make_unique<BackgroundRun>(dir.path(), words);
      // Its port once it is ready (the state file's streams and the stream list in force):
      // the one wait of this test that is a retry; every documented curl then runs once.
      static const std::regex listening(R"(framepipe serve: listening on http://127\.0\.0\.1:([0-9]+))");
      std::smatch m;
      std::string out;
      const bool ready = eventually(
          [&] {
            out = server->output();
            return !server->alive() || (std::regex_search(out, m, listening) &&
                                        out.find("framepipe serve: ready:") != std::string::npos);
          },
          30);
      ASSERT_TRUE(ready && server->alive() && !m.empty())
          << command.where << ": `" << command.text << "` did not start (listening on the loopback, then ready): "
          << server->outcome();
      port = std::stoi(m[1]);
      ++servers;
      continue;
    }
    if (text.rfind("curl ", 0) == 0) {
      ASSERT_TRUE(server) << command.where << ": a curl example with no server started before it";
      text = std::regex_replace(text, std::regex("localhost:8080"), "127.0.0.1:" + std::to_string(port));
      text = std::regex_replace(text, std::regex(R"(rtsp://[^"' ]*)"), "testsrc://160x120@30?noise=10&frames=0");
      // A snapshot asks for a stream's picture, and a removal ends a stream whose output is
      // checked below: both of a stream that a reader has seen running, with frames. Just
      // added here, it may have none yet (a sanitizer build starts slowly): the snapshot
      // would answer 503, and a Matroska file without a frame does not open (FFmpeg writes no
      // readable one). So the stream's first frame is waited for (bounded, and it must come),
      // as a reader's camera would have given it; the documented command itself runs once.
      static const std::regex removes(
          R"re(DELETE \S*/v1/streams/([A-Za-z0-9_-]+)|stream/remove.*"camera_id": "([^"]+)")re");
      static const std::regex snapshots(R"re(/v1/streams/([A-Za-z0-9_-]+)/snapshot)re");
      std::string removed;  // the stream this command removes, if it removes one
      if (std::smatch r; std::regex_search(text, r, removes)) removed = r[1].matched ? r[1].str() : r[2].str();
      std::string needs_a_frame = removed;
      if (std::smatch r; needs_a_frame.empty() && std::regex_search(text, r, snapshots)) needs_a_frame = r[1].str();
      const auto stream_url = [&](const std::string& name) {
        return "http://127.0.0.1:" + std::to_string(port) + "/v1/streams/" + name;
      };
      if (!needs_a_frame.empty()) {
        const std::string& name = needs_a_frame;
        const std::string url = stream_url(name);
        std::string last;
        ASSERT_TRUE(eventually(
            [&] {
              const auto answer = curl("GET", url);
              last = answer.body;
              const auto body = answer.json();
              return body.is_object() && body.value("frames", 0LL) > 0;
            },
            20, std::chrono::milliseconds(50)))
            << command.where << ": stream " << name << " had no frame before `" << command.text
            << "`; it says: " << last << "\nserver: " << server->outcome();
      }
      const std::string run = "curl -sS --fail-with-body --max-time " + std::to_string(static_cast<int>(time_bound(20))) +
                              " " + text.substr(5);
      const auto result = shell(run, dir.path());
      EXPECT_EQ(result.first, 0) << command.where << ": `" << command.text << "`\n  ran: " << run << "\n"
                                 << result.second << "\nserver: " << server->outcome();
      ++curls;
      if (text.find("/v1/drain") != std::string::npos) wait_for_end(command.where);
      // A removed stream finalizes its outputs, and holds its place in the budget until it
      // has (listed until then): a reader's next command comes seconds later, but here the
      // next add would come while a sanitizer build still finalizes, and be refused 503
      // capacity. So the removal's end is waited for (bounded, and it must come).
      if (result.first == 0 && !removed.empty()) {
        EXPECT_TRUE(eventually([&] { return curl("GET", stream_url(removed)).status == 404; }, 30,
                               std::chrono::milliseconds(50)))
            << command.where << ": stream " << removed << " was still finalizing its outputs after `" << command.text
            << "`\nserver: " << server->outcome();
      }
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
// parameter would be listed in stream_list.rejected). Only its cameras' addresses are
// changed, to a loopback port that refuses (127.0.0.1:1): a test reaches no other machine,
// and what is checked (names, templates, set and decode keys) is the README's text.
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
  // Each rtsp:// URI's host (and port) becomes the refusing loopback port; nothing else of
  // the text changes, and no other address may be left in it.
  static const std::regex camera_host(R"(rtsp://[^/'" ]+/)");
  const std::string sandboxed = std::regex_replace(lists.front(), camera_host, "rtsp://127.0.0.1:1/");
  const auto cameras = std::distance(std::sregex_iterator(lists.front().begin(), lists.front().end(), camera_host),
                                     std::sregex_iterator());
  EXPECT_GE(cameras, 2) << "README.md's stream list names fewer than two cameras (rtsp://HOST/...):\n" << lists.front();
  static const std::regex any_uri(R"([a-z][a-z0-9+.-]*://[^'" ]*)");
  std::string outside;
  for (std::sregex_iterator it(sandboxed.begin(), sandboxed.end(), any_uri), end; it != end; ++it)
    if (it->str().rfind("rtsp://127.0.0.1:1/", 0) != 0 && it->str().rfind("testsrc://", 0) != 0)
      outside += " " + it->str();
  ASSERT_EQ(outside, "") << "README.md's stream list has URIs that the server would reach; replace them here "
                            "as rtsp:// ones are";
  TempDir dir("serve-docs-list");
  std::ofstream(dir / "cams.yaml") << sandboxed;
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
