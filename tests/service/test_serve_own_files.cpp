// framepipe serve keeps what a client may ask for within bounds: an output never lands on the
// service's own files (templates, state file) nor, by default, in its working directory; an
// input larger or faster than --max-input-size / --max-input-fps is refused (422, naming the
// limit and the option); and a token file others can read is warned of, one with a control
// character refused, the token never printed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/service/curl_client.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

#define ASSERT_SERVING(server) ASSERT_TRUE((server).ready()) << (server).failure()

// A histogram's text output: any extension goes, which is what made a template a target.
const char* const kHistTemplate = R"(device: cpu
input: testsrc://64x48@30?frames=5
stages:
  - {id: hist, type: luma_histogram, output: '{stream}.csv'}
)";

std::string text_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

HttpReply put_hist(const ServeProcess& server, const std::string& name, const std::string& output) {
  const json body = {{"pipeline", "hist"}, {"uri", "testsrc://64x48@30?frames=5"}, {"set", {{"hist.output", output}}}};
  return curl_with_body("PUT", server.url("/v1/streams/" + name), body.dump());
}

HttpReply put_uri(const ServeProcess& server, const std::string& name, const std::string& uri) {
  return curl_with_body("PUT", server.url("/v1/streams/" + name), json{{"uri", uri}}.dump());
}

std::string error_of(const HttpReply& reply) { return reply.json().is_object() ? reply.json().value("error", "") : ""; }

// The output root holds the template and the state file (as the old default, the working
// directory, did): neither is ever written by a stream, nor anything beside them.
TEST(ServeOwnFiles, OutputsNeverOverwriteTheTemplateOrTheStateFile) {
  ServeProcess server("own-files", {.templates = {{"hist", kHistTemplate}},
                                    .extra_args = {"--state", "state.json"},
                                    .output_root = "."});
  ASSERT_SERVING(server);
  const fs::path template_file = fs::canonical(server.dir() / "hist.yaml");
  const fs::path state_file = fs::canonical(server.dir()) / "state.json";

  const auto onto_template = put_hist(server, "cam1", "hist.yaml");
  EXPECT_EQ(onto_template.status, 403) << onto_template.body;
  EXPECT_NE(error_of(onto_template).find(template_file.string()), std::string::npos) << onto_template.body;
  const auto onto_state = put_hist(server, "cam2", "state.json");
  EXPECT_EQ(onto_state.status, 403) << onto_state.body;
  EXPECT_NE(error_of(onto_state).find(state_file.string()), std::string::npos) << onto_state.body;
  const auto beside = put_hist(server, "cam3", "{stream}.csv");
  EXPECT_EQ(beside.status, 403) << beside.body;

  // A folder of its own under the root is where outputs go.
  const auto inside = put_hist(server, "cam4", "recordings/{stream}.csv");
  ASSERT_EQ(inside.status, 201) << inside.body;
  EXPECT_TRUE(eventually([&] { return curl("GET", server.url("/v1/streams/cam4")).json().value("state", "") == "finished"; },
                         20))
      << curl("GET", server.url("/v1/streams/cam4")).body;
  EXPECT_TRUE(fs::exists(server.dir() / "recordings" / "cam4.csv"));
  EXPECT_EQ(text_of(template_file), kHistTemplate);
  // Every later PUT still validates (the template was not overwritten), and the state file is the state.
  EXPECT_EQ(put_hist(server, "cam5", "recordings/{stream}.csv").status, 201);
  EXPECT_EQ(json::parse(text_of(state_file)).value("version", 0), 1);
}

// Without --output-root, outputs go to ./framepipe-output (made at start), not the working
// directory where the templates often are.
TEST(ServeOwnFiles, TheDefaultOutputRootIsAFolderOfItsOwn) {
  ServeProcess server("default-output-root", {.templates = {{"hist", kHistTemplate}}, .output_root = ""});
  ASSERT_SERVING(server);
  EXPECT_TRUE(fs::is_directory(server.dir() / "framepipe-output")) << server.log();
  const auto put = put_hist(server, "cam1", "{stream}.csv");
  ASSERT_EQ(put.status, 201) << put.body;
  EXPECT_TRUE(eventually([&] { return fs::exists(server.dir() / "framepipe-output" / "cam1.csv"); }, 20))
      << curl("GET", server.url("/v1/streams/cam1")).body;
  EXPECT_FALSE(fs::exists(server.dir() / "cam1.csv"));
  // The same put naming the template is then only a file in that folder, not the template.
  EXPECT_EQ(put_hist(server, "cam2", "hist.yaml").status, 201);
  EXPECT_EQ(text_of(server.dir() / "hist.yaml"), kHistTemplate);

  const auto help = run_framepipe_with_timeout({"serve", "--help"}, server.dir(), static_cast<int>(time_bound(20)));
  EXPECT_NE(help.output.find("framepipe-output"), std::string::npos) << help.output;
}

// One PUT cannot ask for a 16384x16384 frame (1.2 GB a stream) or a billion frames a second.
TEST(ServeInputLimits, TheDefaultsRefuseHugeAndFastInputs) {
  ServeProcess server("input-limits");
  ASSERT_SERVING(server);
  const auto huge = put_uri(server, "huge", "testsrc://16384x16384@1?frames=0");
  EXPECT_EQ(huge.status, 422) << huge.body;
  EXPECT_NE(error_of(huge).find("--max-input-size"), std::string::npos) << huge.body;
  EXPECT_NE(error_of(huge).find("4096x2160"), std::string::npos) << huge.body;
  const auto fast = put_uri(server, "fast", "testsrc://1920x1080@999999999?frames=0");
  EXPECT_EQ(fast.status, 422) << fast.body;
  EXPECT_NE(error_of(fast).find("--max-input-fps"), std::string::npos) << fast.body;
  EXPECT_NE(error_of(fast).find("120"), std::string::npos) << fast.body;
  EXPECT_EQ(curl("GET", server.url("/v1/streams")).json()["streams"].size(), 0u);
  EXPECT_EQ(put_uri(server, "small", "testsrc://64x48@30?frames=0").status, 201);
}

// Limits set by the options: refused at PUT where the URI states the size, and a file found
// larger when it opens fails its stream, naming the limit.
TEST(ServeInputLimits, TheOptionsSetThemAndAnOpenedFileIsCheckedToo) {
  TempDir media("serve-input-limits-media");
  const fs::path large = media / "large.mkv";
  const std::string smooth = write_templates(media.path(), {{"smooth", kSmoothTemplate}}).front();
  const auto made = run_framepipe_with_timeout(
      {"run", smooth, "-i", "testsrc://320x240@30?frames=3", "-o", large.string(), "--device", "cpu", "-q"},
      media.path(), static_cast<int>(time_bound(60)));
  ASSERT_EQ(made.exit_code, 0) << made.output;

  ServeProcess server("input-limits-set", {.extra_args = {"--max-input-size", "160x120", "--max-input-fps", "25",
                                                          "--allow-root", media.path().string()}});
  ASSERT_SERVING(server);
  const auto wide = put_uri(server, "wide", "testsrc://161x120@25?frames=0");
  EXPECT_EQ(wide.status, 422) << wide.body;
  EXPECT_NE(error_of(wide).find("160x120"), std::string::npos) << wide.body;
  EXPECT_EQ(put_uri(server, "fast", "testsrc://64x48@30?frames=0").status, 422);
  EXPECT_EQ(put_uri(server, "tall", "testsrc://120x160@25?frames=0").status, 201);  // either way round

  ASSERT_EQ(put_uri(server, "file", large.string()).status, 201);
  std::string last_error;
  EXPECT_TRUE(eventually(
      [&] {
        const json stream = curl("GET", server.url("/v1/streams/file")).json();
        if (stream.contains("last_error") && stream["last_error"].is_string()) last_error = stream["last_error"];
        return stream.value("state", "") == "failed";
      },
      20))
      << last_error;
  EXPECT_NE(last_error.find("320x240"), std::string::npos) << last_error;
  EXPECT_NE(last_error.find("--max-input-size"), std::string::npos) << last_error;

  // A limit that is not one is a usage error at start.
  for (const std::vector<std::string>& bad : {std::vector<std::string>{"--max-input-size", "0x100"},
                                              std::vector<std::string>{"--max-input-size", "big"},
                                              std::vector<std::string>{"--max-input-fps", "0"}}) {
    std::vector<std::string> args = {"serve", (server.dir() / "smooth.yaml").string(), "--listen", "127.0.0.1:0"};
    args.insert(args.end(), bad.begin(), bad.end());
    const auto refused = run_framepipe_with_timeout(args, server.dir(), static_cast<int>(time_bound(20)));
    EXPECT_EQ(refused.exit_code, 2) << refused.output;
    EXPECT_NE(refused.output.find(bad.front()), std::string::npos) << refused.output;
  }
}

// As ssh does for a private key: a token file every user can read is named with the fix,
// and the token itself never appears.
TEST(ServeTokenFile, AFileOthersCanReadIsWarnedOfAndTheTokenNeverPrinted) {
  TempDir tokens("token-file-mode");  // not serve-token-mode: that is the server's own folder
  const std::string token = "tok-0b4d3e2f9a1c";
  const fs::path file = tokens / "token";
  std::ofstream(file) << token << "\n";
  fs::permissions(file, fs::perms(0644));
  ServeProcess server("token-mode", {.extra_args = {"--token-file", file.string()}});
  ASSERT_SERVING(server);
  const std::string log = server.log();
  EXPECT_NE(log.find(file.string()), std::string::npos) << log;
  EXPECT_NE(log.find("chmod 600"), std::string::npos) << log;
  EXPECT_EQ(log.find(token), std::string::npos) << log;
}

// A NUL byte in the token file: refused at start (exit 2) naming the file, never serving.
TEST(ServeTokenFile, AControlCharacterInTheTokenIsAUsageError) {
  TempDir dir("serve-token-nul");
  const fs::path file = dir / "token";
  std::ofstream(file, std::ios::binary) << std::string("tok-1\0tail\n", 11);
  fs::permissions(file, fs::perms(0600));
  auto args = write_templates(dir.path(), {{"smooth", kSmoothTemplate}});
  args.insert(args.begin(), "serve");
  args.insert(args.end(), {"--listen", "127.0.0.1:0", "--device", "cpu", "--token-file", file.string()});
  const auto refused = run_framepipe_with_timeout(args, dir.path(), static_cast<int>(time_bound(10)));
  EXPECT_EQ(refused.exit_code, 2) << refused.output;
  EXPECT_NE(refused.output.find(file.string()), std::string::npos) << refused.output;
  EXPECT_EQ(refused.output.find("listening on"), std::string::npos) << refused.output;
  EXPECT_EQ(refused.output.find("tok-1"), std::string::npos) << refused.output;
}

}  // namespace
}  // namespace fp::test
