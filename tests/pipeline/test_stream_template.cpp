// What `framepipe serve` accepts as a stream, decided before anything is opened: the
// template loaded as `framepipe validate` loads it (its very lines when it refuses), {stream}
// in output paths, outputs confined to the output root and local inputs to the allowed
// roots; and the state file that keeps the desired streams across a restart.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "pipeline/config/loader.hpp"
#include "pipeline/streams/file_index.hpp"
#include "pipeline/stream_spec/state_file.hpp"
#include "pipeline/streams/template.hpp"
#include "tests/e2e/cli_runner.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;
using test::TempDir;

constexpr const char* kTemplate = R"(# a service's template
input: testsrc://64x48@30?frames=30
stages:
  - {id: smooth, type: mean_smooth, radius: 1}
  - {id: out, type: encode, output: 'out/{stream}.mp4'}
)";

class StreamTemplateTest : public ::testing::Test {
 protected:
  StreamTemplateTest() : dir_("stream-template") {
    fs::create_directories(dir_ / "templates");
    fs::create_directories(dir_ / "outputs");
    fs::create_directories(dir_ / "media");
    fs::create_directories(dir_ / "elsewhere");
    std::ofstream(dir_ / "templates" / "smooth.yaml") << kTemplate;
    roots_.output_root = dir_ / "outputs";
    roots_.allow_roots = {dir_ / "media"};
  }

  StreamTemplates templates() const {
    return StreamTemplates({{"smooth", dir_ / "templates" / "smooth.yaml"}}, roots_, AutoBackend{}, limits_);
  }

  static StreamSpec spec(std::string name, std::string uri = "testsrc://64x48@30?frames=5") {
    return StreamSpec{.name = std::move(name), .pipeline = "smooth", .uri = std::move(uri), .sets = {}, .decode = {}};
  }

  // The status a refused spec gets, and its message; 0 when it is accepted.
  std::pair<int, std::string> refusal(const StreamSpec& s) const {
    try {
      templates().plan(s);
      return {0, ""};
    } catch (const StreamRejected& e) {
      return {e.status(), e.what()};
    }
  }

  TempDir dir_;
  StreamRoots roots_;
  InputLimits limits_;  // none unless a test sets them
};

TEST_F(StreamTemplateTest, OutputsAreTheStreamsOwnUnderTheOutputRoot) {
  const StreamPlan plan = templates().plan(spec("cam1"));
  const fs::path expected = fs::weakly_canonical(dir_ / "outputs") / "out" / "cam1.mp4";
  ASSERT_EQ(plan.outputs, std::vector<std::string>{expected.string()});
  EXPECT_EQ(plan.definition.find("out")->params.text("output"), expected.string());
  EXPECT_EQ(plan.definition.find("input")->params.text("uri"), "testsrc://64x48@30?frames=5");
  EXPECT_FALSE(plan.endless);
  EXPECT_TRUE(templates().plan(spec("cam2", "testsrc://64x48@30?frames=0")).endless);
}

TEST_F(StreamTemplateTest, SetsAndDecodeParametersOverrideTheTemplate) {
  StreamSpec s = spec("cam1");
  s.sets = {{"smooth.radius", "3"}};
  s.decode = {{"on_error", "stop"}};
  const StreamPlan plan = templates().plan(s);
  EXPECT_EQ(plan.definition.find("smooth")->params.integer("radius"), 3);
  EXPECT_EQ(plan.definition.find("input")->params.text("on_error"), "stop");
}

TEST_F(StreamTemplateTest, BadNamesAre400) {
  for (const std::string& name : std::vector<std::string>{"", "a/b", "..", ".", "cam 1", "x\ny", std::string(65, 'a')})
    EXPECT_EQ(refusal(spec(name)).first, 400) << name;
  EXPECT_EQ(refusal(spec(std::string(64, 'a'))).first, 0);
  EXPECT_EQ(refusal(spec("Cam_1.left-2")).first, 0);
}

// `run` and `serve` name streams by one rule (definition/stream_names.hpp): a name that
// `inputs: [{name: NAME}]` (and so a list line or a file's stem) takes, PUT
// /v1/streams/NAME takes, and the reverse. Before, run took any length and serve a leading '.'.
bool run_takes_name(const std::string& name) {
  const std::string yaml = "inputs:\n  - {uri: 'testsrc://64x48@30?frames=5', name: " + nlohmann::json(name).dump() +
                           "}\n  - {uri: 'testsrc://64x48@30?frames=5', name: other}\n"
                           "stages:\n  - {id: out, type: encode, output: 'out/{stream}.mp4'}\n";
  try {
    parse_pipeline(yaml, "names.yaml");
    return true;
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("name"), std::string::npos) << e.what();  // refused for its name
    return false;
  }
}

TEST_F(StreamTemplateTest, AStreamNameIsValidForServeExactlyWhenItIsForRun) {
  const std::vector<std::string> names{"cam-1", "Cam_1.left-2", "a", std::string(64, 'a'), std::string(65, 'a'),
                                       ".hidden", "..", ".", "cam 1", "a/b", "x\ny", "", "caméra", "cam.", "-cam"};
  for (const std::string& name : names) {
    const bool serve_takes = refusal(spec(name)).first == 0;
    EXPECT_EQ(run_takes_name(name), serve_takes) << "'" << name << "': serve " << (serve_takes ? "takes" : "refuses") << " it";
  }
  EXPECT_FALSE(run_takes_name(std::string(65, 'a')));
  EXPECT_EQ(refusal(spec(".hidden")).first, 400);
}

TEST_F(StreamTemplateTest, AnUnknownTemplateIs422NamingTheKnownOnes) {
  StreamSpec s = spec("cam1");
  s.pipeline = "nope";
  const auto [status, message] = refusal(s);
  EXPECT_EQ(status, 422);
  EXPECT_NE(message.find("'nope'"), std::string::npos) << message;
  EXPECT_NE(message.find("known: smooth"), std::string::npos) << message;
}

// The API's refusal and `framepipe validate TEMPLATE -i URI --set ...`'s error lines are
// the same text (validate adds its count line after them). The templates here are checked
// for the CPU (no devices given), so validate is told the same: on a machine with a GPU its
// `auto` would add the CUDA kernels' limits (smooth.radius <= 32).
TEST_F(StreamTemplateTest, AnInvalidStreamIs422WithValidatesWords) {
  StreamSpec s = spec("cam1", "rtsp://user:hunter2@cam.example/live?transport=carrier-pigeon");
  s.sets = {{"smooth.radius", "99"}, {"smooth.nope", "1"}};
  s.decode = {{"on_error", "sometimes"}};
  const auto [status, message] = refusal(s);
  EXPECT_EQ(status, 422);
  const auto validate = test::run_framepipe({"validate", (dir_ / "templates" / "smooth.yaml").string(), "-i", s.uri,
                                             "--set", "smooth.nope=1", "--set", "smooth.radius=99", "--set",
                                             "input.on_error=sometimes", "--device", "cpu"});
  ASSERT_EQ(validate.exit_code, 2) << validate.output;
  const std::string lines = validate.output.substr(0, validate.output.rfind("framepipe: "));
  EXPECT_EQ(message + "\n", lines);
  EXPECT_EQ(message.find("hunter2"), std::string::npos) << message;
  EXPECT_NE(message.find("radius"), std::string::npos) << message;
}

TEST_F(StreamTemplateTest, OutputsOutsideTheOutputRootAre403) {
  fs::create_directory_symlink(dir_ / "elsewhere", dir_ / "outputs" / "link");
  const auto with_output = [&](const std::string& output) {
    StreamSpec s = spec("cam1");
    s.sets = {{"out.output", output}};
    return refusal(s);
  };
  EXPECT_EQ(with_output("../escape.mp4").first, 403);
  EXPECT_EQ(with_output("a/../../escape.mp4").first, 403);
  EXPECT_EQ(with_output("link/escape.mp4").first, 403);  // a symlink out of the root
  EXPECT_EQ(with_output((dir_ / "outputs" / "abs.mp4").string()).first, 403);  // absolute, even inside
  EXPECT_NE(with_output("../escape.mp4").second.find("output root"), std::string::npos);
  // Inside: fine; and network outputs go where they say.
  EXPECT_EQ(with_output("a/../inside.mp4").first, 0);
  EXPECT_EQ(with_output("udp://127.0.0.1:5000").first, 0);
  EXPECT_EQ(with_output("srt://127.0.0.1:9000?mode=caller").first, 0);
}

// The service's own files (its templates, state file, stream list and token file) are never
// an output, nor beside one in their folders: a histogram's CSV written over a template, or
// over the state file, would stop the service at its next start. The refusal names the file.
TEST_F(StreamTemplateTest, OutputsNeverNameTheServicesOwnFiles) {
  roots_.output_root = dir_.path();  // the templates' folder is inside it, as with the old default (the working directory)
  fs::create_directories(dir_ / "state");
  fs::create_directories(dir_ / "lists");
  fs::create_directories(dir_ / "secrets");
  std::ofstream(dir_ / "lists" / "streams.yaml") << "streams: []\n";
  std::ofstream(dir_ / "secrets" / "token") << "t0k3n\n";
  roots_.own_files = {{dir_ / "state" / "streams.json", "state file (--state)"},
                      {dir_ / "lists" / "streams.yaml", "stream list (--stream-list)"},
                      {dir_ / "secrets" / "token", "token file (--token-file)"}};
  // luma_histogram's text output takes any extension (an encoder's would refuse .yaml or .json).
  std::ofstream(dir_ / "templates" / "hist.yaml")
      << "input: testsrc://64x48@30?frames=5\nstages:\n  - {id: hist, type: luma_histogram, output: '{stream}.csv'}\n";
  const auto with_output = [&](const std::string& output) -> std::pair<int, std::string> {
    StreamSpec s = spec("cam1");
    s.pipeline = "hist";
    s.sets = {{"hist.output", output}};
    try {
      StreamTemplates({{"smooth", dir_ / "templates" / "smooth.yaml"}, {"hist", dir_ / "templates" / "hist.yaml"}},
                      roots_)
          .plan(s);
      return {0, ""};
    } catch (const StreamRejected& e) {
      return {e.status(), e.what()};
    }
  };
  const auto refused_naming = [&](const std::string& output, const fs::path& own) {
    const auto [status, message] = with_output(output);
    EXPECT_EQ(status, 403) << output << ": " << message;
    EXPECT_NE(message.find(fs::weakly_canonical(own).string()), std::string::npos) << output << ": " << message;
  };
  refused_naming("templates/smooth.yaml", dir_ / "templates" / "smooth.yaml");
  refused_naming("state/streams.json", dir_ / "state" / "streams.json");  // before it exists too
  refused_naming("lists/streams.yaml", dir_ / "lists" / "streams.yaml");
  refused_naming("secrets/token", dir_ / "secrets" / "token");
  // Beside them: another file in one of their folders (the state file's temporaries live there).
  refused_naming("templates/other.csv", dir_ / "templates" / "hist.yaml");
  refused_naming("state/streams.json.tmp", dir_ / "state" / "streams.json");
  refused_naming("secrets/{stream}.csv", dir_ / "secrets" / "token");
  // Through a link to one of those folders.
  fs::create_directory_symlink(dir_ / "lists", dir_ / "link");
  refused_naming("link/x.csv", dir_ / "lists" / "streams.yaml");
  EXPECT_NE(with_output("templates/smooth.yaml").second.find("template 'smooth'"), std::string::npos);
  // Elsewhere under the root, and in folders below theirs: fine.
  EXPECT_EQ(with_output("recordings/{stream}.csv").first, 0);
  EXPECT_EQ(with_output("templates/recordings/{stream}.csv").first, 0);
}

// Inputs the service would spend unbounded memory or CPU on are refused before anything is
// opened, naming the limit and the option that sets it.
TEST_F(StreamTemplateTest, InputsBeyondTheLimitsAre422NamingTheLimitAndTheOption) {
  limits_ = InputLimits{.max_width = 640, .max_height = 360, .max_fps = 60};
  const auto [big_status, big] = refusal(spec("cam1", "testsrc://641x360@30"));
  EXPECT_EQ(big_status, 422) << big;
  EXPECT_NE(big.find("641x360"), std::string::npos) << big;
  EXPECT_NE(big.find("640x360"), std::string::npos) << big;
  EXPECT_NE(big.find("--max-input-size"), std::string::npos) << big;
  EXPECT_EQ(refusal(spec("cam1", "testsrc://16384x16384@1")).first, 422);
  EXPECT_EQ(refusal(spec("cam1", "testsrc://640x361@30")).first, 422);
  EXPECT_EQ(refusal(spec("cam1", "testsrc://640x360@30")).first, 0);
  EXPECT_EQ(refusal(spec("cam1", "testsrc://360x640@30")).first, 0);  // either way round
  EXPECT_EQ(refusal(spec("cam1", "testsrc://")).first, 0);  // testsrc's default size, 640x360
  const auto [fast_status, fast] = refusal(spec("cam1", "testsrc://64x48@999999999"));
  EXPECT_EQ(fast_status, 422) << fast;
  EXPECT_NE(fast.find("999999999"), std::string::npos) << fast;
  EXPECT_NE(fast.find("--max-input-fps"), std::string::npos) << fast;
  EXPECT_EQ(refusal(spec("cam1", "testsrc://64x48@60.001")).first, 422);
  EXPECT_EQ(refusal(spec("cam1", "testsrc://64x48@60")).first, 0);
  EXPECT_EQ(refusal(spec("cam1", "testsrc://64x48@60000/1001")).first, 0);
  // A camera's size and rate as its URI asks for them (no camera is opened here).
  roots_.allow_roots = {"/dev"};
  EXPECT_EQ(refusal(spec("cam1", "v4l2:///dev/video0?size=1280x720")).first, 422);
  EXPECT_EQ(refusal(spec("cam1", "v4l2:///dev/video0?size=640x360&fps=120")).first, 422);
  EXPECT_EQ(refusal(spec("cam1", "v4l2:///dev/video0?size=640x360&fps=30000/1001")).first, 0);
  EXPECT_EQ(refusal(spec("cam1", "v4l2:///dev/video0")).first, 0);  // its size is known once opened
  // No limits: as before.
  limits_ = {};
  EXPECT_EQ(refusal(spec("cam1", "testsrc://1920x1080@240")).first, 0);
}

TEST_F(StreamTemplateTest, LocalInputsOnlyUnderAnAllowedRoot) {
  std::ofstream(dir_ / "media" / "in.y4m") << "";
  std::ofstream(dir_ / "elsewhere" / "in.y4m") << "";
  fs::create_symlink(dir_ / "elsewhere" / "in.y4m", dir_ / "media" / "sneaky.y4m");
  const std::string inside = (dir_ / "media" / "in.y4m").string();
  const std::string outside = (dir_ / "elsewhere" / "in.y4m").string();
  EXPECT_EQ(refusal(spec("cam1", inside)).first, 0);
  EXPECT_EQ(refusal(spec("cam1", "file://" + inside)).first, 0);
  const auto [status, message] = refusal(spec("cam1", outside));
  EXPECT_EQ(status, 403);
  EXPECT_NE(message.find(outside), std::string::npos) << message;  // names the input
  EXPECT_NE(message.find(fs::weakly_canonical(dir_ / "media").string()), std::string::npos) << message;  // and the roots
  EXPECT_EQ(refusal(spec("cam1", "file://" + outside)).first, 403);
  EXPECT_EQ(refusal(spec("cam1", (dir_ / "media" / "sneaky.y4m").string())).first, 403);
  EXPECT_EQ(refusal(spec("cam1", (dir_ / "media" / ".." / "elsewhere" / "in.y4m").string())).first, 403);
  EXPECT_EQ(refusal(spec("cam1", "v4l2:///dev/video0")).first, 403);  // /dev is no allowed root
  // Protocols FFmpeg would read local files (or stdin) with.
  EXPECT_EQ(refusal(spec("cam1", "concat://" + outside)).first, 403);
  EXPECT_EQ(refusal(spec("cam1", "pipe:0")).first, 403);
  // Network inputs are allowed; a refused one is named without its password.
  EXPECT_EQ(refusal(spec("cam1", "rtsp://user:hunter2@cam.example/live")).first, 0);
  const auto [ftp_status, ftp_message] = refusal(spec("cam1", "ftp://user:hunter2@files.example/a.mp4"));
  EXPECT_EQ(ftp_status, 403);
  EXPECT_EQ(ftp_message.find("hunter2"), std::string::npos) << ftp_message;
}

// What FFmpeg reads as a protocol is one, whatever a path would look like: with the
// working directory inside an allowed root, "subfile,/.../:PATH" once passed for a relative
// path (its '/' before its ':') while FFmpeg read PATH through its subfile protocol, and
// "file://NAME" for NAME under the working directory while FFmpeg opens "//NAME" (/NAME).
TEST_F(StreamTemplateTest, UrisAreReadAsFfmpegReadsThem) {
  std::ofstream(dir_ / "media" / "in.y4m") << "";
  std::ofstream(dir_ / "elsewhere" / "in.y4m") << "";
  const fs::path outside = dir_ / "elsewhere" / "in.y4m";
  const fs::path cwd = fs::current_path();
  fs::current_path(dir_ / "media");
  const auto status = [&](const std::string& uri) { return refusal(spec("cam1", uri)).first; };
  EXPECT_EQ(status("in.y4m"), 0);
  EXPECT_EQ(status("file:in.y4m"), 0);
  EXPECT_EQ(status("subfile,/start/0/end/0//:" + outside.string()), 403);
  EXPECT_EQ(status("subfile,,start,0,end,0,,:in.y4m"), 403);  // subfile is no file, even inside
  EXPECT_EQ(status("file://in.y4m"), 403);                      // FFmpeg opens /in.y4m
  EXPECT_EQ(status("FILE:in.y4m"), 403);                        // no protocol FFmpeg knows
  EXPECT_EQ(status("async:in.y4m"), 403);
  EXPECT_EQ(status("cache:" + outside.string()), 403);
  EXPECT_EQ(status("hls+http://cam.example/a.m3u8"), 403);      // not one of the schemes served
  fs::current_path(cwd);
}

TEST_F(StreamTemplateTest, NoAllowedRootsMeansNoLocalInputs) {
  roots_.allow_roots.clear();
  std::ofstream(dir_ / "media" / "in.y4m") << "";
  const auto [status, message] = refusal(spec("cam1", (dir_ / "media" / "in.y4m").string()));
  EXPECT_EQ(status, 403);
  EXPECT_NE(message.find("--allow-root"), std::string::npos) << message;
  EXPECT_EQ(refusal(spec("cam1", "v4l2:///dev/video0")).first, 403);
  EXPECT_EQ(refusal(spec("cam1", "testsrc://64x48@30?frames=5")).first, 0);
}

TEST_F(StreamTemplateTest, TwoStreamsOnOneFileClash) {
  StreamSpec a = spec("cam1");
  a.sets = {{"out.output", "shared.mp4"}};
  StreamSpec b = spec("cam2");
  b.sets = {{"out.output", "shared.mp4"}};
  const StreamPlan plan_a = templates().plan(a);
  const StreamPlan plan_b = templates().plan(b);
  const StreamPlan plan_c = templates().plan(spec("cam3"));
  StreamFileIndex index;
  index.add(1, "cam1", plan_a.files);
  const std::string message = index.clashes("cam2", plan_b.files);
  EXPECT_NE(message.find("cam1"), std::string::npos) << message;
  EXPECT_NE(message.find("shared.mp4"), std::string::npos) << message;
  EXPECT_EQ(index.clashes("cam3", plan_c.files), "");
  EXPECT_EQ(index.clashes("cam1", plan_a.files), "");  // a replacement: itself is no clash
}

TEST_F(StreamTemplateTest, ABrokenTemplateStopsTheServiceFromStarting) {
  std::ofstream(dir_ / "templates" / "broken.yaml") << "stages:\n  - {type: nope}\n";
  try {
    StreamTemplates({{"broken", dir_ / "templates" / "broken.yaml"}}, roots_);
    FAIL() << "a broken template loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("broken.yaml"), std::string::npos) << e.what();
  }
}

TEST(StreamStateFile, RoundTripsPrivatelyAndRefusesBadJson) {
  TempDir dir("stream-state-file");
  const fs::path file = dir / "state.json";
  EXPECT_TRUE(read_stream_state(file).streams.empty());  // none yet: nothing to restore
  const std::vector<SavedStream> saved = {
      {StreamSpec{.name = "cam1", .pipeline = "p", .uri = "rtsp://u:secret@h/1", .sets = {{"a.b", "[1, 2]"}},
                  .decode = {{"reconnect", "forever"}}},
       false},
      {StreamSpec{.name = "file2", .pipeline = "p", .uri = "in.mp4", .sets = {}, .decode = {}}, true}};
  ::umask(022);  // the file must be private whatever the umask
  write_stream_state(file, {.streams = saved});
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_FALSE(fs::exists(file.string() + ".tmp"));
  const auto back = read_stream_state(file).streams;
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(back[0].spec.uri, "rtsp://u:secret@h/1");
  EXPECT_EQ(back[0].spec.sets.at("a.b"), "[1, 2]");
  EXPECT_EQ(back[0].spec.decode.at("reconnect"), "forever");
  EXPECT_FALSE(back[0].finished);
  EXPECT_EQ(back[1].spec.name, "file2");
  EXPECT_TRUE(back[1].finished);

  std::ofstream(file) << "{\"version\": 1, \"streams\": [";
  try {
    read_stream_state(file);
    FAIL() << "bad JSON was read";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("JSON"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fp
