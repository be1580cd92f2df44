// One secret, driven through every way a URI or a configuration value reaches a person or a
// file: error lines (SRT and RTSP outputs that cannot connect, an RTSP input whose password
// holds a '/'), framepipe's -v info log and FFmpeg's, the run summary, --stats-json (one
// stream and several), `validate`, configuration errors quoting an input list's line or a
// --set, and `probe`. The secret must appear in none of them; what is no secret stays readable.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/e2e/cli_runner.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSecret = "S3cr3tPassphrase";

std::string text_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Case {
  std::vector<std::string> args;
  int exit_code;
  std::string stats_json;  // the file it writes, if any
  bool names_the_uri = true;  // prints it (masked), or prints no URI at all
};

TEST(Secrets, NoPasswordOrPassphraseIsEverPrintedOrWritten) {
  TempDir dir("cli-secrets");
  const std::string secret = kSecret;
  write_text(dir / "p.yaml", "input: testsrc://64x48@30?frames=5\nstages:\n  - {id: out, type: encode, output: null}\n");
  write_text(dir / "list.txt", "srt://127.0.0.1:9?passphrase=" + secret + " cam extra-word\n");
  write_text(dir / "list.yaml", "inputs: {list: list.txt}\nstages:\n  - {id: out, type: encode, output: 'o_{stream}.mp4'}\n");
  write_text(dir / "scalar.yaml",
             "inputs: 'rtsp://user:" + secret + "@127.0.0.1:9/live'\nstages:\n  - {id: out, type: encode, output: o.mp4}\n");
  // Port 9 on the loopback: nothing listens (TCP refuses at once, an SRT caller waits timeout_ms).
  const std::string srt = "srt://127.0.0.1:9?passphrase=" + secret;
  const std::vector<Case> cases = {
      {{"-v", "run", "p.yaml", "-o", srt, "--set", "out.timeout_ms=300", "--stats-json", "s1.json"}, 1, ""},
      {{"-v", "run", "p.yaml", "-o", "rtsp://user:" + secret + "@127.0.0.1:9/live", "--set", "out.timeout_ms=300"}, 1, ""},
      {{"-v", "run", "p.yaml", "-i", "rtsp://user:pa/" + secret + "@127.0.0.1:9/live"}, 1, ""},
      {{"-v", "run", "p.yaml", "-o", "udp://127.0.0.1:9?token=" + secret, "--stats-json", "s2.json"}, 0, "s2.json"},
      {{"-v", "run", "p.yaml", "-i", "testsrc://64x48@30?frames=3", "-i", srt, "-o", "o_{stream}.mp4", "--set",
        "input.timeout_ms=300", "--stats-json", "s3.json"},
       1, "s3.json"},
      {{"validate", "list.yaml"}, 2, ""},
      {{"validate", "scalar.yaml"}, 2, ""},
      {{"validate", "p.yaml", "--set", "out=" + srt}, 2, ""},
      {{"validate", "p.yaml", "--set", "out.output=srt://127.0.0.1?passphrase=" + secret}, 2, "", false},
      {{"validate", "p.yaml", "-o", srt}, 0, "", false},
      {{"probe", srt + "&timeout=300000"}, 1, ""},
      {{"probe", "rtsp://user:pa/" + secret + "@127.0.0.1:9/live"}, 1, ""},
  };
  for (const auto& c : cases) {
    std::string shown;
    for (const auto& a : c.args) shown += a + " ";
    const auto result = run_framepipe_with_timeout(c.args, dir.path(), static_cast<int>(time_bound(60)));
    EXPECT_EQ(result.exit_code, c.exit_code) << shown << "\n" << result.output;
    EXPECT_EQ(result.output.find(secret), std::string::npos) << shown << "\n" << result.output;
    if (c.names_the_uri) {
      EXPECT_NE(result.output.find("***"), std::string::npos) << shown << ": says what it masked\n" << result.output;
    }
    if (!c.stats_json.empty()) {
      ASSERT_TRUE(fs::exists(dir / c.stats_json)) << shown;
      const std::string stats = text_of(dir / c.stats_json);
      EXPECT_EQ(stats.find(secret), std::string::npos) << shown << "\n" << stats;
      EXPECT_NE(stats.find("***"), std::string::npos) << shown << "\n" << stats;
    }
  }
}

TEST(Secrets, ValuesThatAreNoSecretStayReadable) {
  TempDir dir("cli-secrets-readable");
  write_text(dir / "p.yaml", "input: testsrc://64x48@30?frames=5\nstages:\n  - {id: out, type: encode, output: null}\n");
  const auto result =
      run_framepipe({"validate", "p.yaml", "--set", "out=srt://h:9000?latency=200&streamid=cam7", "--set", "out.crf=77"},
                    dir.path());
  EXPECT_EQ(result.exit_code, 2) << result.output;
  EXPECT_NE(result.output.find("(got 'out=srt://h:9000?latency=200&streamid=cam7')"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("(got 77)"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace fp::test
