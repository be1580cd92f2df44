// An output may not overwrite an input, nor two outputs write one file: refused when the
// pipeline is read (so by `validate` and `run` alike), with a message that names the output's
// setting and path and what it clashes with. Paths are compared as files, not as text: a
// hard link, a symlink, a `./x/../` spelling and {stream} substitution all name one file.
// Works in a scratch folder, with the real file system.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "config_test_util.hpp"
#include "pipeline/definition/file_clashes.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

class FileClashes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(FRAMEPIPE_BINARY_DIR) / "test-output" /
           ("file-clashes-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "cams");
    write("in.y4m", "YUV4MPEG2 W2 H2 F1:1\n");
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& name, const std::string& text = "") { std::ofstream(dir_ / name) << text; }
  std::string at(const std::string& name) const { return (dir_ / name).string(); }
  // One input, one encode stage writing `output`.
  std::string one_output(const std::string& output) const {
    return "input: '" + at("in.y4m") + "'\nstages:\n  - {id: out, type: encode, output: '" + output + "'}\n";
  }
  fs::path dir_;
};

TEST_F(FileClashes, OutputThatIsTheInputIsRefusedNamingBoth) {
  const auto issues = issues_of(one_output(at("in.y4m")));
  ASSERT_EQ(issues.size(), 1u) << formatted(issues);
  EXPECT_EQ(issues[0].line, 3);
  EXPECT_EQ(issues[0].key, "stages[0].output");
  const std::string text = formatted(issues);
  EXPECT_NE(text.find("stage 'out'"), std::string::npos) << text;
  EXPECT_NE(text.find("input of stage 'input'"), std::string::npos) << text;
  EXPECT_NE(text.find("would overwrite"), std::string::npos) << text;
}

TEST_F(FileClashes, MinusOSameAsMinusIIsRefusedAtTheOption) {
  ConfigOverrides overrides;
  overrides.inputs = {at("in.y4m")};
  overrides.output = at("in.y4m");
  const auto issues = issues_of(one_output(at("out.mp4")), overrides);
  ASSERT_EQ(issues.size(), 1u) << formatted(issues);
  EXPECT_EQ(issues[0].file, kCommandLine);
  EXPECT_EQ(issues[0].key, "-o");
}

TEST_F(FileClashes, OtherSpellingsOfTheInputAreTheInput) {
  fs::create_directories(dir_ / "sub");
  fs::create_hard_link(dir_ / "in.y4m", dir_ / "hard.y4m");
  fs::create_symlink(dir_ / "in.y4m", dir_ / "link.y4m");
  fs::create_directory_symlink(dir_ / "cams", dir_ / "cams-link");
  for (const std::string& output : {at("sub/../in.y4m"), at("nowhere/../in.y4m"), at("./in.y4m"), at("hard.y4m"),
                                   at("link.y4m"), "file:" + at("in.y4m")}) {
    const auto issues = issues_of(one_output(output));
    EXPECT_EQ(issues.size(), 1u) << output << "\n" << formatted(issues);
  }
  // The input spelled another way (file:, a symlinked folder) against the output.
  write("cams/a.y4m", "YUV4MPEG2 W2 H2 F1:1\n");
  const auto issues = issues_of("input: 'file:" + at("cams-link/a.y4m") + "'\nstages:\n  - {type: encode, output: '" +
                                at("cams/a.y4m") + "'}\n");
  EXPECT_EQ(issues.size(), 1u) << formatted(issues);
}

TEST_F(FileClashes, RelativePathsAreTheWorkingFolders) {
  const fs::path before = fs::current_path();
  fs::current_path(dir_);
  const auto issues = issues_of("input: in.y4m\nstages:\n  - {type: encode, output: ./x/../in.y4m}\n");
  fs::current_path(before);
  EXPECT_EQ(issues.size(), 1u) << formatted(issues);
}

TEST_F(FileClashes, GlobOutputsOverTheirSourcesAreRefusedForEveryStream) {
  write("cams/yard.mp4");
  write("cams/door.mp4");
  const auto issues = issues_of("inputs: {glob: '" + at("cams") + "/*.mp4'}\nstages:\n  - {id: out, type: encode, output: '" +
                                at("cams") + "/{stream}.mp4'}\n");
  ASSERT_EQ(issues.size(), 2u) << formatted(issues);
  const std::string text = formatted(issues);
  EXPECT_NE(text.find("input of stream door"), std::string::npos) << text;
  EXPECT_NE(text.find("input of stream yard"), std::string::npos) << text;
  EXPECT_NE(text.find("stage 'yard/out'"), std::string::npos) << text;
}

TEST_F(FileClashes, TwoOutputsOfOneStreamAtOnePathAreRefused) {
  const auto issues = issues_of("input: '" + at("in.y4m") + "'\nstages:\n  - {id: a, type: encode, output: '" +
                                at("o.mp4") + "'}\n  - {id: b, type: encode, input: input, output: '" + at("./o.mp4") +
                                "'}\n");
  ASSERT_EQ(issues.size(), 1u) << formatted(issues);
  EXPECT_EQ(issues[0].line, 4);  // the second one
  const std::string text = formatted(issues);
  EXPECT_NE(text.find("stage 'a'"), std::string::npos) << text;
  EXPECT_NE(text.find("stage 'b'"), std::string::npos) << text;
}

TEST_F(FileClashes, TheHistogramsTextFileIsAnOutputToo) {
  const auto issues = issues_of("input: '" + at("in.y4m") + "'\nstages:\n  - {id: h, type: luma_histogram, output: '" +
                                at("in.y4m") + "'}\n  - {type: encode, input: input, output: '" + at("o.mp4") + "'}\n");
  ASSERT_EQ(issues.size(), 1u) << formatted(issues);
  EXPECT_NE(formatted(issues).find("output of stage 'h'"), std::string::npos) << formatted(issues);
}

TEST_F(FileClashes, TwoStreamsWritingOneFileAreRefused) {
  // {stream} is in the path, yet both streams' paths name one file.
  const auto issues = issues_of("inputs: ['testsrc://64x48@30?frames=3', 'testsrc://64x48@30?frames=3']\nstages:\n"
                                "  - {id: out, type: encode, output: '" + at("{stream}/../o.mp4") + "'}\n");
  ASSERT_EQ(issues.size(), 1u) << formatted(issues);
  const std::string text = formatted(issues);
  EXPECT_NE(text.find("stage '0/out'"), std::string::npos) << text;
  EXPECT_NE(text.find("stage '1/out'"), std::string::npos) << text;
}

TEST_F(FileClashes, AnHlsPlaylistsSegmentsMustNotBeInputs) {
  write("cams/live3.ts");
  const auto issues = issues_of("input: '" + at("cams/live3.ts") + "'\nstages:\n  - {type: encode, output: '" +
                                at("cams/live.m3u8") + "'}\n");
  ASSERT_EQ(issues.size(), 1u) << formatted(issues);
  EXPECT_NE(formatted(issues).find("HLS segments"), std::string::npos) << formatted(issues);
}

TEST_F(FileClashes, WhatIsNoFileNeverClashes) {
  // Reading one file twice is fine; null and network outputs and testsrc inputs are no files.
  EXPECT_TRUE(issues_of("input: 'testsrc://64x48@30?frames=3'\nstages:\n  - {id: a, type: encode, output: null}\n"
                        "  - {id: b, type: encode, input: input, output: null}\n"
                        "  - {id: c, type: encode, input: input, output: 'udp://127.0.0.1:5000'}\n"
                        "  - {id: d, type: encode, input: input, output: 'udp://127.0.0.1:5000'}\n")
                  .empty());
  EXPECT_TRUE(issues_of("inputs: ['" + at("in.y4m") + "', '" + at("in.y4m") +
                        "']\nstages:\n  - {type: encode, output: '" + at("{stream}.mp4") + "'}\n")
                  .empty());
  EXPECT_TRUE(issues_of(one_output(at("in2.y4m"))).empty());
  // A character device holds nothing to destroy: several outputs may write to /dev/null or
  // /dev/full (the output-fault tests point every output at /dev/full).
  for (const char* device : {"/dev/null", "/dev/full"}) {
    if (!fs::exists(device)) continue;
    const std::string name = fs::path(device).filename().string();
    for (const char* ext : {".csv", ".y4m", ".mkv"}) {
      fs::remove(at(name + ext));
      fs::create_symlink(device, at(name + ext));
    }
    EXPECT_TRUE(issues_of("input: 'testsrc://64x48@30?frames=3'\nstages:\n  - {id: h, type: luma_histogram, output: '" +
                          at(name + ".csv") + "'}\n  - {id: a, type: encode, output: '" + at(name + ".y4m") +
                          "'}\n  - {id: b, type: encode, input: input, output: '" + at(name + ".mkv") + "'}\n")
                    .empty())
        << device;
  }
}

TEST_F(FileClashes, AFileAddedLaterIsCheckedAgainstThePipelines) {
  // What `run --stats-json` (and a service's own files) do: the loaded pipeline's files, plus one.
  const auto definition = parse_pipeline(one_output(at("o.mp4")), "t.yaml");
  for (const std::string& added : {at("in.y4m"), at("o.mp4")}) {
    std::vector<FileUse> files = definition.files;
    files.push_back({.written = true, .path = added, .what = "--stats-json file",
                     .where = ConfigIssue{.file = kCommandLine, .key = "--stats-json"}});
    std::vector<ConfigIssue> issues;
    check_file_clashes(files, issues);
    ASSERT_EQ(issues.size(), 1u) << added;
    EXPECT_EQ(issues[0].key, "--stats-json");
  }
}

}  // namespace
}  // namespace fp::test
