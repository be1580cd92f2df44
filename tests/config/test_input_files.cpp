// `inputs: {glob: ...}` and `inputs: {list: ...}`: one stream per file matched or line
// listed, named after the file or the list, with the map's other decode parameters; and a
// clear error, with its line, for each way they can go wrong. Works in a scratch folder.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config_test_util.hpp"

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
  EXPECT_EQ(definition.streams[1].name, "1");
  EXPECT_EQ(definition.streams[1].input.text("uri"), at("cams/yard.mp4"));
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
