// `inputs: {glob: ...}` and `inputs: {list: ...}`: one stream per file matched or line
// listed, named after the file or the list, with the map's other decode parameters; and a
// clear error, with its line, for each way they can go wrong. Works in a scratch folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config_test_util.hpp"
#include "pipeline/config/input_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

class InputFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" /
           ("input-files-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cams");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text = "") { std::ofstream(dir_ / name) << text; }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  static std::string pipeline(const std::string& inputs) {
    return "inputs: " + inputs + "\nstages:\n  - {id: out, type: encode, output: 'out/{stream}.mp4'}\n";
  }
  fs::path dir_;
};

TEST_F(InputFiles, GlobMakesOneStreamPerFileNamedAfterIt) {
  write("cams/yard.mp4");
  write("cams/door.mp4");
  write("cams/notes.txt");
  write("cams/.hidden.mp4");
  const auto definition =
      parse_pipeline(pipeline("{glob: '" + at("cams") + "/*.mp4', on_error: stop, decode: software}"), "t.yaml");
  ASSERT_EQ(definition.streams.size(), 2u);
  EXPECT_EQ(definition.streams[0].name, "door");  // sorted
  EXPECT_EQ(definition.streams[0].input.text("uri"), at("cams/door.mp4"));
  EXPECT_EQ(definition.streams[1].name, "yard");
  for (const auto& stream : definition.streams) {
    EXPECT_EQ(stream.input.text("on_error"), "stop");
    EXPECT_EQ(stream.input.text("decode"), "software");
  }
}

TEST_F(InputFiles, GlobNamesStreamsByIndexWhenTwoFilesShareAStem) {
  write("cams/a.mp4");
  write("cams/a.mkv");
  const auto definition = parse_pipeline(pipeline("{glob: '" + at("cams") + "/a.*'}"), "t.yaml");
  ASSERT_EQ(definition.streams.size(), 2u);
  EXPECT_EQ(definition.streams[0].name, "0");
  EXPECT_EQ(definition.streams[1].name, "1");
}

TEST_F(InputFiles, ListGivesUrisAndOptionalNames) {
  write("cams.txt", "# the front of the house\nrtsp://cam1/stream front\n\n  " + at("cams/yard.mp4") + "\n");
  const auto definition = parse_pipeline(pipeline("{list: '" + at("cams.txt") + "', timeout_ms: 2000}"), "t.yaml");
  ASSERT_EQ(definition.streams.size(), 2u);
  EXPECT_EQ(definition.streams[0].name, "front");
  EXPECT_EQ(definition.streams[0].input.text("uri"), "rtsp://cam1/stream");
  EXPECT_EQ(definition.streams[0].input.integer("timeout_ms"), 2000);
  EXPECT_EQ(definition.streams[1].name, "yard");  // an unnamed file: after it, as a glob names it
  EXPECT_EQ(definition.streams[1].input.text("uri"), at("cams/yard.mp4"));
}

// A batch's outputs ({stream}) and its shards (run --shard) follow each file, not its line:
// adding a line must not rename the others' outputs nor move them to another shard.
TEST_F(InputFiles, ListNamesUnnamedFilesAfterThemAndUrisByIndex) {
  write("cams.txt", "cams/door.mp4\nfile://" + at("cams/yard.v2.mkv") + "\ntestsrc://64x48@25?frames=3\n"
                    "rtsp://cam1/stream front\nrtsp://cam2/stream\ncams/a+b.mp4\n");
  const auto definition = parse_pipeline(pipeline("{list: '" + at("cams.txt") + "'}"), "t.yaml");
  std::vector<std::string> names;
  for (const auto& stream : definition.streams) names.push_back(stream.name);
  // a+b is no name for a file ({stream}): by index, as a URI, rather than an error.
  EXPECT_EQ(names, (std::vector<std::string>{"door", "yard.v2", "2", "front", "4", "5"}));
}

TEST_F(InputFiles, ListNamesItsFilesByIndexWhenTwoNamesWouldClash) {
  // Two stems alike, as a glob's a.mp4 and a.mkv: every unnamed file by its index.
  write("stems.txt", "cams/a.mp4\ncams/b.mp4\nother/a.mkv\n");
  // A stem equal to another line's name.
  write("named.txt", "cams/door.mp4\nrtsp://cam1/stream door\n");
  // A stem equal to an unnamed URI's index name.
  write("index.txt", "testsrc://64x48@25?frames=3\ncams/0.mp4\n");
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"stems.txt", {"0", "1", "2"}}, {"named.txt", {"0", "door"}}, {"index.txt", {"0", "1"}}};
  for (const auto& [list, expected] : cases) {
    const auto definition = parse_pipeline(pipeline("{list: '" + at(list) + "'}"), "t.yaml");
    std::vector<std::string> names;
    for (const auto& stream : definition.streams) names.push_back(stream.name);
    EXPECT_EQ(names, expected) << list;
  }
}

TEST_F(InputFiles, FileStreamNameIsEmptyForAnythingButAFileWithAUsableStem) {
  EXPECT_EQ(file_stream_name("cams/door.mp4"), "door");
  EXPECT_EQ(file_stream_name("/data/in/clip-07.y4m"), "clip-07");
  EXPECT_EQ(file_stream_name("file:///data/in/a.b.mkv"), "a.b");
  EXPECT_EQ(file_stream_name("rtsp://cam1/stream.mp4"), "");
  EXPECT_EQ(file_stream_name("testsrc://64x48@25?frames=3"), "");
  EXPECT_EQ(file_stream_name("v4l2:///dev/video0"), "");
  EXPECT_EQ(file_stream_name("pipe:0"), "");
  EXPECT_EQ(file_stream_name("in/a+b.mp4"), "");  // no valid name: by index, not an error
  EXPECT_EQ(file_stream_name("in/.hidden.mp4"), "");
}

// One -i over a file that lists several inputs runs that input alone, named after it: not
// after the list's first input, whose name would then label another file's outputs.
TEST_F(InputFiles, OneInputOptionOverAListIsNamedAfterItsOwnFile) {
  write("cams.txt", "cams/door.mp4\ncams/yard.mp4\n");
  const std::string yaml = pipeline("{list: '" + at("cams.txt") + "'}");
  const auto file = parse_pipeline(yaml, "t.yaml", ConfigOverrides{.inputs = {"cams/gate.mp4"}});
  ASSERT_EQ(file.streams.size(), 1u);
  EXPECT_EQ(file.streams[0].name, "gate");
  EXPECT_EQ(file.streams[0].input.text("uri"), "cams/gate.mp4");
  const auto uri = parse_pipeline(yaml, "t.yaml", ConfigOverrides{.inputs = {"rtsp://cam9/stream"}});
  ASSERT_EQ(uri.streams.size(), 1u);
  EXPECT_EQ(uri.streams[0].name, "0");
}

TEST_F(InputFiles, EachMistakeIsOneIssueAtTheKeysLine) {
  write("three.txt", "a b c\n");
  write("empty.txt", "# nothing\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{glob: '" + at("cams") + "/*.mp4'}", "inputs.glob: no file matches"},
      {"{glob: '" + at("") + "*/x.mp4'}", "inputs.glob: wildcards go in the file name only"},
      {"{glob: '" + at("nowhere") + "/*.mp4'}", "inputs.glob: cannot list"},
      {"{list: '" + at("missing.txt") + "'}", "inputs.list: cannot read the list"},
      {"{list: '" + at("cams") + "'}", "not a regular file"},
      {"{list: '" + at("three.txt") + "'}", "three.txt:1: a line is `URI` or `URI NAME` (got 'a b c')"},
      {"{list: '" + at("empty.txt") + "'}", "names no input"},
      {"{list: a.txt, glob: '*.mp4'}", "give `glob` (a file pattern) or `list` (a file of inputs), not both"},
      {"{glob: '*.mp4', uri: x.mp4}", "inputs.glob: `glob` names the inputs: no `uri` beside it"},
      {"{glob: [a, b]}", "inputs.glob: must be a file pattern such as cams/*.mp4"},
  };
  for (const auto& [inputs, expected] : cases) {
    const auto issues = issues_of(pipeline(inputs));
    ASSERT_EQ(issues.size(), 1u) << inputs << "\n" << formatted(issues);
    EXPECT_NE(formatted(issues).find(expected), std::string::npos) << inputs << "\n" << formatted(issues);
    EXPECT_EQ(issues[0].line, 1) << inputs;
  }
}

}  // namespace
}  // namespace fp::test
