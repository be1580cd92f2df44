// Every file in tests/config/malformed/ states what loading it must report, in comment
// lines at its top:
//   # expect: LINE[:COLUMN]: TEXT
// one per issue. The file must produce exactly that many issues, each at its line (and
// column, when given) and each containing TEXT in its formatted form.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <regex>

#include "config_test_util.hpp"

namespace fp {
namespace {

struct Expectation {
  int line = 0;
  int column = 0;  // 0: not checked
  std::string text;
};

std::vector<Expectation> read_expectations(const std::filesystem::path& file) {
  static const std::regex pattern(R"(^# expect: (\d+)(?::(\d+))?: (.+)$)");
  std::vector<Expectation> out;
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (!std::regex_match(line, m, pattern)) continue;
    out.push_back({std::stoi(m[1]), m[2].matched ? std::stoi(m[2]) : 0, m[3]});
  }
  return out;
}

std::vector<std::string> malformed_files() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(test::config_data("malformed")))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

class MalformedFile : public ::testing::TestWithParam<std::string> {};

TEST_P(MalformedFile, ReportsExactlyTheExpectedIssues) {
  const auto path = test::config_data("malformed") / GetParam();
  const auto expected = read_expectations(path);
  ASSERT_FALSE(expected.empty()) << path << " has no '# expect:' line";

  std::vector<ConfigIssue> issues;
  try {
    load_pipeline(path);
  } catch (const ConfigError& e) {
    issues = e.issues();
  }
  const std::string all = test::formatted(issues);
  EXPECT_EQ(issues.size(), expected.size()) << all;
  for (const auto& want : expected) {
    const bool found = std::any_of(issues.begin(), issues.end(), [&](const ConfigIssue& issue) {
      return issue.line == want.line && (want.column == 0 || issue.column == want.column) &&
             issue.format().find(want.text) != std::string::npos;
    });
    EXPECT_TRUE(found) << "expected at line " << want.line << ": " << want.text << "\ngot:\n" << all;
  }
  for (const auto& issue : issues) {
    EXPECT_EQ(issue.file, path.string());
    EXPECT_EQ(issue.format().rfind(path.string() + ":", 0), 0u) << issue.format();
  }
}

INSTANTIATE_TEST_SUITE_P(Config, MalformedFile, ::testing::ValuesIn(malformed_files()),
                         [](const ::testing::TestParamInfo<std::string>& file) {
                           return std::filesystem::path(file.param).stem().string();
                         });

TEST(MalformedFiles, AtLeastTwentyFiveCases) { EXPECT_GE(malformed_files().size(), 25u); }

// Issues come in file order, whatever order the checks found them in.
TEST(MalformedFiles, ManyErrorsAreReportedInFileOrder) {
  try {
    load_pipeline(test::config_data("malformed/many_errors.yaml"));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const auto& issues = e.issues();
    EXPECT_TRUE(std::is_sorted(issues.begin(), issues.end(), [](const ConfigIssue& a, const ConfigIssue& b) {
      return a.line < b.line || (a.line == b.line && a.column < b.column);
    }));
    // what() carries every issue, one a line, for callers that only print it.
    EXPECT_EQ(std::string(e.what()) + "\n", test::formatted(issues));
  }
}

}  // namespace
}  // namespace fp
