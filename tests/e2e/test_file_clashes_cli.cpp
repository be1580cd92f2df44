// `run` and `validate` refuse a pipeline whose output would overwrite one of its inputs, or
// whose two outputs (of one stream or of two) are one file: exit 2, a configuration error
// naming both, and every input left byte for byte as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/e2e/cli_runner.hpp"
#include "tests/text_files.hpp"

namespace fp::test {
namespace {

namespace fs = std::filesystem;

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const char* kPipeline = R"(input: in.y4m
stages:
  - {id: out, type: encode, output: out.mp4}
)";

// A folder with in.y4m (a few real frames) and p.yaml reading it.
class ClashCli : public ::testing::Test {
 protected:
  void SetUp() override {
    write_text(dir_ / "p.yaml", kPipeline);
    const auto made = run_framepipe({"run", "p.yaml", "-i", "testsrc://64x48@30?frames=3", "-o", "in.y4m"}, dir_.path());
    ASSERT_EQ(made.exit_code, 0) << made.output;
    input_ = bytes_of(dir_ / "in.y4m");
    ASSERT_GT(input_.size(), 1000u);
  }
  // Both `run` and `validate` refuse `args` (after the command and file) as a configuration
  // error that says `expected`, and in.y4m is unchanged.
  void expect_refused(const std::vector<std::string>& args, const std::string& expected) {
    for (const std::string command : {"run", "validate"}) {
      std::vector<std::string> all = {command, "p.yaml"};
      all.insert(all.end(), args.begin(), args.end());
      const auto result = run_framepipe(all, dir_.path());
      EXPECT_EQ(result.exit_code, 2) << command << ": " << result.output;
      EXPECT_NE(result.output.find(expected), std::string::npos) << command << ": " << result.output;
      EXPECT_NE(result.output.find("configuration error"), std::string::npos) << result.output;
      EXPECT_EQ(bytes_of(dir_ / "in.y4m"), input_) << command << " damaged the input";
    }
  }
  TempDir dir_{"cli-file-clashes"};
  std::string input_;
};

TEST_F(ClashCli, OutputSameAsInputIsRefusedAndTheInputSurvives) {
  expect_refused({"-i", "in.y4m", "-o", "in.y4m"},
                 "command line: -o: 'in.y4m' (output of stage 'out') would overwrite 'in.y4m' (input of stage 'input')");
}

TEST_F(ClashCli, AnotherSpellingOfTheInputIsTheInput) {
  fs::create_directory(dir_ / "x");
  expect_refused({"-o", "./x/../in.y4m"}, "'./x/../in.y4m' (output of stage 'out') would overwrite 'in.y4m'");
  fs::create_hard_link(dir_ / "in.y4m", dir_ / "hard.y4m");
  expect_refused({"-o", "hard.y4m"}, "'hard.y4m' (output of stage 'out') would overwrite 'in.y4m'");
  fs::create_symlink("in.y4m", dir_ / "link.y4m");
  expect_refused({"-o", "link.y4m"}, "'link.y4m' (output of stage 'out') would overwrite 'in.y4m'");
}

TEST_F(ClashCli, GlobOutputsOverTheirSourcesAreRefused) {
  fs::create_directory(dir_ / "cams");
  fs::copy_file(dir_ / "in.y4m", dir_ / "cams/a.y4m");
  fs::copy_file(dir_ / "in.y4m", dir_ / "cams/b.y4m");
  write_text(dir_ / "g.yaml", "inputs: {glob: 'cams/*.y4m'}\nstages:\n  - {id: out, type: encode, output: 'cams/{stream}.y4m'}\n");
  for (const std::string command : {"run", "validate"}) {
    const auto result = run_framepipe({command, "g.yaml"}, dir_.path());
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("g.yaml:3:37: stages[0].output: 'cams/a.y4m' (output of stage 'a/out') would "
                                 "overwrite 'cams/a.y4m' (input of stream a)"),
              std::string::npos)
        << result.output;
    EXPECT_NE(result.output.find("'cams/b.y4m' (input of stream b)"), std::string::npos) << result.output;
    EXPECT_EQ(bytes_of(dir_ / "cams/a.y4m"), input_);
    EXPECT_EQ(bytes_of(dir_ / "cams/b.y4m"), input_);
  }
}

TEST_F(ClashCli, TwoOutputsAtOnePathAreRefused) {
  write_text(dir_ / "p.yaml", "input: in.y4m\nstages:\n  - {id: a, type: encode, output: o.mp4}\n"
                              "  - {id: b, type: encode, input: input, output: o.mp4}\n");
  expect_refused({}, "p.yaml:4:49: stages[1].output: 'o.mp4' (output of stage 'b') and 'o.mp4' (output of stage 'a') "
                     "are one file");
  EXPECT_FALSE(fs::exists(dir_ / "o.mp4")) << "nothing run, no output created";
}

TEST_F(ClashCli, TwoStreamsWritingOneFileAreRefused) {
  fs::create_directory(dir_ / "s");
  expect_refused({"-i", "in.y4m", "-i", "in.y4m", "-o", "s/{stream}/../o.mp4"},
                 "'s/1/../o.mp4' (output of stage '1/out') and 's/0/../o.mp4' (output of stage '0/out') are one file");
}

TEST_F(ClashCli, StatsJsonMayBeNoInputNorOutput) {
  for (const std::string path : {"in.y4m", "out.mp4"}) {
    const auto result = run_framepipe({"run", "p.yaml", "--stats-json", path}, dir_.path());
    EXPECT_EQ(result.exit_code, 2) << result.output;
    EXPECT_NE(result.output.find("command line: --stats-json: '" + path + "' (--stats-json file)"), std::string::npos)
        << result.output;
    EXPECT_EQ(bytes_of(dir_ / "in.y4m"), input_);
    EXPECT_FALSE(fs::exists(dir_ / "out.mp4")) << "nothing run";
  }
}

}  // namespace
}  // namespace fp::test
