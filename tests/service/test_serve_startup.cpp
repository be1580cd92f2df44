// What `framepipe serve` refuses at start, each with a message naming the file or option and
// what is wrong, and with its exit code: a state file it cannot use (not JSON, another
// version, not a regular file, unreadable, a link) is refused and left as it was, its
// credentials never quoted; a template that no longer loads; a token file that holds no
// usable token; --shard without --stream-list; an unknown --deepstream-pipeline; an address
// already in use. A real server process, started as an operator starts it.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "tests/e2e/background_run.hpp"
#include "tests/e2e/cli_runner.hpp"
#include "tests/service/serve_process.hpp"
#include "tests/time_bound.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

struct StartOptions {
  std::map<std::string, std::string> templates = {{"smooth", kSmoothTemplate}};
  std::string listen = "127.0.0.1:0";
  // As user nobody when this is root: root reads a file of mode 000 (CAP_DAC_OVERRIDE), and
  // the service's user in production is not root. Another user reads none of mode 000 anyway.
  bool as_other_user = false;
};

// How a start ended: by itself (its exit code), or not (-1: it was ready, or still going
// at the bound, and was stopped), with everything it printed.
struct Start {
  int exit_code = -1;
  bool ready = false;
  std::string output;
};

// framepipe serve with the templates (written into `dir`), the CPU, outputs under dir/out and
// `args`, waited for (bounded) until it ends or says it is ready: a refused start ends by
// itself, and one that should have been refused is seen at once instead of at a timeout.
Start start_serve(const TempDir& dir, const std::vector<std::string>& args, const StartOptions& options = {}) {
  fs::create_directories(dir / "out");
  std::vector<std::string> serve = {"serve"};
  for (const auto& file : write_templates(dir.path(), options.templates)) serve.push_back(file);
  serve.insert(serve.end(), {"--listen", options.listen, "--device", "cpu", "--output-root", (dir / "out").string()});
  serve.insert(serve.end(), args.begin(), args.end());
  std::unique_ptr<BackgroundRun> run;
  if (options.as_other_user && ::geteuid() == 0) {
    std::vector<std::string> setpriv = {"--reuid=65534", "--regid=65534", "--clear-groups", framepipe_binary()};
    setpriv.insert(setpriv.end(), serve.begin(), serve.end());
    run = std::make_unique<BackgroundRun>(dir.path(), "setpriv", setpriv, "framepipe.log");
  } else {
    run = std::make_unique<BackgroundRun>(dir.path(), serve);
  }
  Start start;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(time_bound(30));
  while (run->alive() && std::chrono::steady_clock::now() < deadline) {
    if (run->output().find("framepipe serve: ready:") != std::string::npos) {
      start.ready = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (run->alive()) {
    run->signal(SIGTERM);
    run->wait(time_bound(20));  // the destructor kills what is left
  } else {
    start.exit_code = run->wait(0).first;
  }
  start.output = run->output();
  return start;
}

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path write_file(const fs::path& file, const std::string& bytes) {
  std::ofstream(file, std::ios::binary) << bytes;
  return file;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A state file that is not a framepipe state (a hand edit gone wrong, a disk that cut it
// short, a newer framepipe's): refused, exit 2 (a configuration error, as a stream list that
// cannot be read), naming the file and what is wrong, and never rewritten: the streams in it
// are the operator's to rescue, and a service that started empty would save an empty state over them.
TEST(ServeStartup, AStateFileItCannotUseIsRefusedNamingItAndLeftAsItWas) {
  struct Case {
    const char* name;
    std::string bytes;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"not JSON", "streams: [cam1]\n", "not valid JSON: [json.exception.parse_error.101] parse error at line 1, column 1"},
      {"cut short", R"({"version": 1, "streams": [{"name": "cam1", "pipeline": "smooth", "ur)", "not valid JSON"},
      {"another version", R"({"version": 2, "streams": []})", "version 2 is not one this framepipe reads (it reads 1)"},
      {"another shape", R"({"version": 1, "streams": [{"name": "cam1", "pipeline": "smooth", "uri": 7}]})",
       "streams[0].uri: expected a string, got a number"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir("serve-start-state-bad");
    const fs::path state = write_file(dir / "state.json", c.bytes);
    const Start start = start_serve(dir, {"--state", state.string()});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_FALSE(start.ready) << start.output;
    EXPECT_TRUE(has(start.output, "framepipe: error: state file " + state.string() + ": " + c.says)) << start.output;
    EXPECT_EQ(bytes_of(state), c.bytes) << "the state file was written over";
  }
}

// A path where no file can be read: a directory, a FIFO (which an open would wait on for a
// writer, holding the start forever while /livez said all is well), a file this user may not
// read. Each refused at once, exit 2, naming the file and why; each left as it was.
TEST(ServeStartup, AStateFileThatCannotBeReadIsRefusedAtOnce) {
  {
    TempDir dir("serve-start-state-dir");
    const fs::path state = dir / "state.json";
    fs::create_directories(state);
    const Start start = start_serve(dir, {"--state", state.string()});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, "state file " + state.string() + ": not a regular file (a directory)")) << start.output;
    EXPECT_TRUE(fs::is_directory(state) && fs::is_empty(state));
  }
  {
    TempDir dir("serve-start-state-fifo");
    const fs::path state = dir / "state.json";
    ASSERT_EQ(::mkfifo(state.c_str(), 0600), 0);
    const Start start = start_serve(dir, {"--state", state.string()});
    EXPECT_EQ(start.exit_code, 2) << (start.ready ? "ready" : "did not end by itself") << "\n" << start.output;
    EXPECT_TRUE(has(start.output, "state file " + state.string() + ": not a regular file (a FIFO")) << start.output;
    EXPECT_TRUE(fs::is_fifo(state));
  }
  {
    TempDir dir("serve-start-state-mode");
    const std::string bytes = R"({"version": 1, "streams": []})";
    const fs::path state = write_file(dir / "state.json", bytes);
    fs::permissions(state, fs::perms::none);
    const Start start = start_serve(dir, {"--state", state.string()}, {.as_other_user = true});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, "state file " + state.string() + ": cannot read: Permission denied")) << start.output;
    EXPECT_EQ(fs::status(state).permissions() & fs::perms::all, fs::perms::none);
    EXPECT_EQ(bytes_of(state), bytes);
  }
}

// A link in the state file's place: refused (the state is replaced by a rename, which would
// replace the link and leave its target stale), the link and its target both untouched.
TEST(ServeStartup, AStateFileThatIsALinkIsRefusedAndNeitherItNorItsTargetChanges) {
  TempDir dir("serve-start-state-link");
  const std::string bytes = R"({"version": 1, "streams": []})";
  const fs::path target = write_file(dir / "real-state.json", bytes);
  const fs::path state = dir / "state.json";
  fs::create_symlink(target.filename(), state);
  const Start start = start_serve(dir, {"--state", state.string()});
  EXPECT_EQ(start.exit_code, 2) << start.output;
  EXPECT_TRUE(has(start.output, "state file " + state.string() + ": is a symbolic link: give the path of the file itself"))
      << start.output;
  EXPECT_TRUE(fs::is_symlink(state));
  EXPECT_EQ(fs::read_symlink(state), target.filename());
  EXPECT_EQ(bytes_of(target), bytes);
}

// --cost TEMPLATE=FILE that cannot be used: a usage error naming the option and what is
// wrong (no such template, no such file, not a bench --pipeline result, a key missing).
// Numbers that are not numbers (issue 43): `--restart-wait nan` passed CLI11's checks (NaN
// fails no comparison) and restarted an unreachable camera 15,346 times in 5 s;
// `--drain-timeout 1e10` overflowed the clock, so SIGTERM ended serve at once with its
// recordings empty. Every number option refuses NaN, infinities and values past its range,
// naming the option (exit 2).
TEST(ServeStartup, ANumberOptionRefusesWhatIsNoNumberInItsRange) {
  TempDir dir("serve-start-numbers");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--restart-wait", "nan"},      {"--restart-wait", "-nan"},      {"--restart-wait-max", "inf"},
      {"--drain-timeout", "1e10"},    {"--drain-timeout", "0"},        {"--max-input-fps", "nan"},
      {"--max-input-fps", "infinity"}, {"--cpu-budget", "nan"},        {"--cpu-budget", "-1"},
  };
  for (const auto& [option, value] : cases) {
    SCOPED_TRACE(option + " " + value);
    const Start start = start_serve(dir, {option, value});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, option + ": must be a number in")) << start.output;
  }
  EXPECT_TRUE(start_serve(dir, {"--restart-wait", "0.5", "--drain-timeout", "86400", "--cpu-budget", "0"}).ready);
}

TEST(ServeStartup, ACostThatCannotBeUsedIsRefusedNamingIt) {
  TempDir dir("serve-start-cost");
  const fs::path good = write_file(
      dir / "good.json", R"({"cost": {"fps": 30, "cpu_ms": 10, "gpu_ms": 0, "host_bytes": 1e6, "device_bytes": 0}})");
  const fs::path not_json = write_file(dir / "notes.txt", "about two cores a stream");
  const fs::path no_gpu = write_file(dir / "partial.json", R"({"cost": {"fps": 30, "cpu_ms": 10}})");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"nosuch=" + good.string(), "no template named nosuch"},
      {"smooth", "expected TEMPLATE=FILE"},
      {"smooth=" + (dir / "missing.json").string(), (dir / "missing.json").string()},
      {"smooth=" + not_json.string(), not_json.string() + ": not a framepipe bench --pipeline result"},
      {"smooth=" + no_gpu.string(), no_gpu.string() + ": cost.gpu_ms: a number is required"},
  };
  for (const auto& [cost, message] : cases) {
    SCOPED_TRACE(cost);
    const Start start = start_serve(dir, {"--cost", cost});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, "--cost")) << start.output;
    EXPECT_TRUE(has(start.output, message)) << start.output;
  }
  EXPECT_TRUE(start_serve(dir, {"--cost", "smooth=" + good.string()}).ready);
}

// The state file holds input URIs with their passwords. A parse error says where (line and
// column) and why, and never quotes the file: a file cut short inside a password ends the
// quote before the '@' that masking looks for, and printed "rtsp://admin:s3cr" as it was.
TEST(ServeStartup, AStateFilesParseErrorNeverShowsItsCredentials) {
  const std::string head = R"({"version": 1, "streams": [{"name": "cam1", "pipeline": "smooth", "uri": )";
  const std::vector<std::string> cases = {
      head + R"("rtsp://admin:s3cr3t-pw)",                              // cut short inside the password
      head + R"("rtsp://admin:s3cr3t-pw@cam.example/1" x}]})",          // a stray word after it
      head + "\"rtsp://admin:s3cr3t-pw@cam.example/1\n\"}]}",           // a raw line end in the string
  };
  for (const auto& bytes : cases) {
    SCOPED_TRACE(bytes);
    TempDir dir("serve-start-state-secret");
    const fs::path state = write_file(dir / "state.json", bytes);
    const Start start = start_serve(dir, {"--state", state.string()});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, "state file " + state.string() + ": not valid JSON")) << start.output;
    EXPECT_TRUE(has(start.output, "line ")) << start.output;
    EXPECT_FALSE(has(start.output, "s3cr")) << start.output;
    EXPECT_EQ(bytes_of(state), bytes);
  }
}

// A template edited between runs so that it no longer loads (bad YAML, a parameter its stage
// does not have): the service refuses to start, exit 2 as `framepipe validate` would say of
// the file, naming the template, its file and validate's line; the state file, whose
// streams run again once the template is mended, stays as it was.
TEST(ServeStartup, ATemplateThatNoLongerLoadsRefusesTheStartAndKeepsTheState) {
  struct Case {
    const char* name;
    std::string yaml;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"bad YAML", "device: cpu\nstages: [{id: smooth, type: mean_smooth\n", "invalid YAML"},
      {"unknown parameter",
       "device: cpu\ninput: testsrc://64x48@30?frames=0\nstages:\n  - {id: smooth, type: mean_smooth, wobble: 2}\n"
       "  - {id: out, type: encode, output: '{stream}.mkv'}\n",
       "wobble"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    TempDir dir("serve-start-template");
    const std::string bytes =
        R"({"version": 1, "streams": [{"name": "cam1", "pipeline": "smooth", "uri": "testsrc://64x48@30?frames=0"}]})";
    const fs::path state = write_file(dir / "state.json", bytes);
    const Start start = start_serve(dir, {"--state", state.string()}, {.templates = {{"smooth", c.yaml}}});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, "pipeline template 'smooth' (" + (dir / "smooth.yaml").string() + ") does not load"))
        << start.output;
    EXPECT_TRUE(has(start.output, (dir / "smooth.yaml").string() + ":")) << "validate's FILE:LINE:COL line\n" << start.output;
    EXPECT_TRUE(has(start.output, c.says)) << start.output;
    EXPECT_FALSE(has(start.output, "listening on")) << start.output;
    EXPECT_EQ(bytes_of(state), bytes);
  }
}

// --token-file naming something that is no token: a directory, a file of two words, a file
// the service's user may not read. Refused before listening, exit 2, naming the file and why,
// and never printing what the file holds.
TEST(ServeStartup, ATokenFileThatHoldsNoUsableTokenIsRefused) {
  {
    TempDir dir("serve-start-token-dir");
    const fs::path token = dir / "token";
    fs::create_directories(token);
    const Start start = start_serve(dir, {"--token-file", token.string()});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, "--token-file " + token.string() + ": not a regular file (a directory)")) << start.output;
    EXPECT_FALSE(has(start.output, "listening on")) << start.output;
  }
  {
    TempDir dir("serve-start-token-words");
    const fs::path token = write_file(dir / "token", "tok-first tok-second\n");
    fs::permissions(token, fs::perms(0600));
    const Start start = start_serve(dir, {"--token-file", token.string()});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, "--token-file " + token.string() + ": holds more than one word")) << start.output;
    EXPECT_FALSE(has(start.output, "listening on")) << start.output;
    EXPECT_FALSE(has(start.output, "tok-first")) << start.output;
  }
  {
    TempDir dir("serve-start-token-mode");
    const fs::path token = write_file(dir / "token", "tok-private\n");
    fs::permissions(token, fs::perms(0600));  // its owner's (root's) only
    const Start start = start_serve(dir, {"--token-file", token.string()}, {.as_other_user = true});
    EXPECT_EQ(start.exit_code, 2) << start.output;
    EXPECT_TRUE(has(start.output, "--token-file " + token.string() + ": Permission denied")) << start.output;
    EXPECT_FALSE(has(start.output, "listening on")) << start.output;
  }
}

// A shard is a part of a stream list: --shard alone would split nothing while the operator
// believes it does. Refused before listening, naming both options.
TEST(ServeStartup, ShardWithoutAStreamListIsRefusedNamingBoth) {
  TempDir dir("serve-start-shard");
  const Start start = start_serve(dir, {"--shard", "0/2"});
  EXPECT_EQ(start.exit_code, 2) << start.output;
  EXPECT_TRUE(has(start.output, "--shard 0/2: give --stream-list FILE too")) << start.output;
  EXPECT_FALSE(has(start.output, "listening on")) << start.output;
}

// The DeepStream routes' template must be one of the templates given: refused before
// listening, naming it and the names there are.
TEST(ServeStartup, AnUnknownDeepstreamPipelineIsRefusedNamingTheTemplates) {
  TempDir dir("serve-start-deepstream");
  const Start start = start_serve(dir, {"--deepstream-pipeline", "smoth"},
                                  {.templates = {{"smooth", kSmoothTemplate}, {"denoise", kSmoothTemplate}}});
  EXPECT_EQ(start.exit_code, 2) << start.output;
  EXPECT_TRUE(has(start.output, "--deepstream-pipeline smoth: no pipeline file of that name")) << start.output;
  EXPECT_TRUE(has(start.output, "denoise, smooth")) << start.output;
  EXPECT_FALSE(has(start.output, "listening on")) << start.output;
}

// A loopback port this test holds (bound and listening).
struct HeldPort {
  int fd = -1;
  int port = 0;
  HeldPort() {
    fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 && ::listen(fd, 1) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0)
      port = ntohs(address.sin_port);
  }
  ~HeldPort() {
    if (fd >= 0) ::close(fd);
  }
  std::string address() const { return "127.0.0.1:" + std::to_string(port); }
};

// The address (or the probes' address) in use by another socket: serve ends at once, naming
// the option and the address, instead of serving elsewhere. Exit 1, a runtime failure: the
// same command works once the other program lets the port go (as `run --metrics` says of it).
TEST(ServeStartup, AnAddressInUseIsRefusedNamingIt) {
  const HeldPort held;
  ASSERT_GT(held.port, 0) << "no loopback port to hold";
  {
    TempDir dir("serve-start-bind");
    const Start start = start_serve(dir, {}, {.listen = held.address()});
    EXPECT_EQ(start.exit_code, 1) << start.output;
    EXPECT_TRUE(has(start.output, "--listen: cannot listen on " + held.address() + ": the address is in use"))
        << start.output;
    EXPECT_FALSE(has(start.output, "listening on http")) << start.output;
  }
  {
    TempDir dir("serve-start-bind-probe");
    const Start start = start_serve(dir, {"--probe-listen", held.address()});
    EXPECT_EQ(start.exit_code, 1) << start.output;
    EXPECT_TRUE(has(start.output, "--probe-listen: cannot listen on " + held.address() + ": the address is in use"))
        << start.output;
  }
}

}  // namespace
}  // namespace fp::test
