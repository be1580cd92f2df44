// Inputs that made the pipeline_yaml fuzz target fail (tests/fuzz/regressions/pipeline_yaml/),
// replayed in the normal suite through the same API and the same checks, so that CI catches
// a regression without clang or libFuzzer: each must give a valid definition or a
// ConfigError whose issues are each one printable line.
#include <gtest/gtest.h>

#include "config_test_util.hpp"
#include "tests/fuzz/pipeline_fuzz_input.hpp"
#include "tests/fuzz/pipeline_invariants.hpp"
#include "tests/fuzz/regression_files.hpp"

namespace fp {
namespace {

class PipelineFuzzRegression : public ::testing::TestWithParam<std::string> {};

TEST_P(PipelineFuzzRegression, GivesADefinitionOrACleanError) {
  const auto input = fuzz::split_pipeline_input(fuzz::read_regression("pipeline_yaml", GetParam()));
  ASSERT_FALSE(input.yaml.empty()) << GetParam();
  try {
    const auto definition = parse_pipeline(input.yaml, "fuzz.yaml", input.overrides);
    EXPECT_EQ(fuzz::broken_promise(definition), "");
  } catch (const ConfigError& error) {
    EXPECT_EQ(fuzz::broken_promise(error), "") << error.what();
  }
}

INSTANTIATE_TEST_SUITE_P(Inputs, PipelineFuzzRegression, ::testing::ValuesIn(fuzz::regression_files("pipeline_yaml")),
                         fuzz::regression_test_name);

// The first one: yaml-cpp's message for a bad escape quotes the character, here a NUL,
// which cut what() short and printed a raw control character.
TEST(PipelineFuzzRegression, ControlCharactersInMessagesAreEscaped) {
  const std::string yaml = std::string("input: \"a\\") + '\0' + "b\"\nstages: []\n";
  const auto issues = test::issues_of(yaml);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].format(), "test.yaml:1:12: invalid YAML: unknown escape character: \\x00");
}

}  // namespace
}  // namespace fp
