// A backend's parameter limits (ParamSpec::cuda_max): applied by the validation whenever the
// pipeline is meant for a CUDA device, requested or resolved from auto, with no GPU needed.
#include <gtest/gtest.h>

#include "stages/registry.hpp"
#include "tests/config/config_test_util.hpp"

namespace fp::test {
namespace {

const char* const kLargeRadius = R"(input: testsrc://64x48@30?frames=3
stages:
  - {id: smooth, type: mean_smooth, radius: 40}
  - {id: out, type: encode, output: out.mp4}
)";

std::vector<ConfigIssue> issues_for(const std::string& yaml, const ConfigOverrides& overrides,
                                    DeviceKind auto_backend) {
  try {
    parse_pipeline(yaml, "test.yaml", overrides, auto_backend);
  } catch (const ConfigError& e) {
    return e.issues();
  }
  return {};
}

TEST(BackendLimits, MeanSmoothRadiusAboveTheCudaKernelsIsRefusedForCuda) {
  for (const std::string device : {"cuda", "cuda:0", "cuda:3"}) {
    const auto issues = issues_for(kLargeRadius, {.device = device}, DeviceKind::Cpu);
    ASSERT_EQ(issues.size(), 1u) << device << "\n" << formatted(issues);
    EXPECT_EQ(issues[0].format(),
              "test.yaml:3:45: stages[0].radius: must be <= 32 on a CUDA device (got 40), the largest the CUDA "
              "kernel takes; lower it or use --device cpu (up to 1024)");
  }
}

TEST(BackendLimits, TheFilesDeviceCountsAsMuchAsTheOption) {
  const auto issues = issues_for(std::string("device: cuda:1\n") + kLargeRadius, {}, DeviceKind::Cpu);
  ASSERT_EQ(issues.size(), 1u) << formatted(issues);
  EXPECT_EQ(issues[0].line, 4);
  EXPECT_EQ(issues[0].key, "stages[0].radius");
}

TEST(BackendLimits, AutoUsesTheBackendItResolvesTo) {
  EXPECT_EQ(issues_for(kLargeRadius, {}, DeviceKind::Cuda).size(), 1u);
  EXPECT_TRUE(issues_for(kLargeRadius, {}, DeviceKind::Cpu).empty());
  EXPECT_EQ(issues_for(kLargeRadius, {.device = "auto"}, DeviceKind::Cuda).size(), 1u);
}

TEST(BackendLimits, TheCpuTakesTheWholeRange) {
  EXPECT_TRUE(issues_for(kLargeRadius, {.device = "cpu"}, DeviceKind::Cuda).empty());
  EXPECT_TRUE(issues_for(std::string("device: cuda\n") + kLargeRadius, {.device = "cpu"}, DeviceKind::Cuda).empty());
}

TEST(BackendLimits, TheLimitItselfIsAccepted) {
  const std::string yaml = R"(input: testsrc://64x48
stages:
  - {type: mean_smooth, radius: 32}
  - {type: encode, output: out.mp4}
)";
  EXPECT_TRUE(issues_for(yaml, {.device = "cuda:0"}, DeviceKind::Cpu).empty());
}

TEST(BackendLimits, ASetOverrideIsNamedOnTheCommandLine) {
  const auto issues =
      issues_for(kSimplePipeline + std::string("  - {id: smooth, type: mean_smooth, input: input}\n"),
                 {.device = "cuda:0", .sets = {"smooth.radius=33"}}, DeviceKind::Cpu);
  ASSERT_EQ(issues.size(), 1u) << formatted(issues);
  EXPECT_EQ(issues[0].file, "command line");
  EXPECT_NE(issues[0].format().find("must be <= 32 on a CUDA device (got 33)"), std::string::npos)
      << formatted(issues);
}

// Every declared CUDA limit lies inside the table's range: otherwise it would limit nothing,
// or refuse the default.
TEST(BackendLimits, DeclaredLimitsAreInsideTheRangeAndAboveTheDefault) {
  int declared = 0;
  for (const auto& spec : stage_registry())
    for (const auto& param : spec.params) {
      if (!param.cuda_max) continue;
      ++declared;
      ASSERT_EQ(param.type, ParamType::Int) << spec.type << "." << param.name;
      ASSERT_TRUE(param.range.max) << spec.type << "." << param.name;
      EXPECT_LT(static_cast<double>(*param.cuda_max), *param.range.max) << spec.type << "." << param.name;
      if (param.default_value) {
        EXPECT_LE(std::get<std::int64_t>(*param.default_value), *param.cuda_max) << spec.type << "." << param.name;
      }
    }
  EXPECT_GE(declared, 1);
}

// Asking what auto is here may start the CUDA driver: a pipeline on a named device never asks.
TEST(BackendLimits, OnlyAPipelineOnAutoAsksWhatAutoIsHere) {
  int asked = 0;
  const AutoBackend counting([&asked] {
    ++asked;
    return DeviceKind::Cuda;
  });
  EXPECT_NO_THROW(parse_pipeline(std::string("device: cpu\n") + kLargeRadius, "test.yaml", {}, counting));
  EXPECT_NO_THROW(parse_pipeline(kLargeRadius, "test.yaml", {.device = "cpu"}, counting));
  EXPECT_EQ(asked, 0);
  EXPECT_THROW(parse_pipeline(kLargeRadius, "test.yaml", {}, counting), ConfigError) << "auto is CUDA here";
  EXPECT_EQ(asked, 1);
}

}  // namespace
}  // namespace fp::test
