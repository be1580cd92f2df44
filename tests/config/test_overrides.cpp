// Command-line overrides: -i, -o, --device and --set, and how their problems are named.
#include <gtest/gtest.h>

#include "config_test_util.hpp"

namespace fp {
namespace {

const char* const kTwoSinks = R"(input: testsrc://64x48@30?frames=3
stages:
  - {id: denoise, type: nlmeans, h: 12}
  - {id: fused, type: pyramid_fusion, inputs: [input, denoise]}
  - {id: skel, type: thinning, input: denoise}
  - {id: out, type: encode, input: fused, output: out.mp4}
  - {id: skelout, type: encode, input: skel, output: skel.mkv}
)";

PipelineDefinition parse(const std::string& yaml, const ConfigOverrides& overrides) {
  try {
    return parse_pipeline(yaml, "test.yaml", overrides);
  } catch (const ConfigError& e) {
    ADD_FAILURE() << e.what();
    throw;
  }
}

ConfigOverrides sets(std::vector<std::string> values) {
  ConfigOverrides overrides;
  overrides.sets = std::move(values);
  return overrides;
}

// The one issue a text with these overrides produces.
ConfigIssue only_issue(const std::string& yaml, const ConfigOverrides& overrides) {
  const auto issues = test::issues_of(yaml, overrides);
  EXPECT_EQ(issues.size(), 1u) << test::formatted(issues);
  return issues.empty() ? ConfigIssue{} : issues.front();
}

TEST(Overrides, InputReplacesTheUriOfTheFirstDecode) {
  ConfigOverrides overrides;
  overrides.inputs = {"rtsp://cam/stream"};
  const auto def = parse(kTwoSinks, overrides);
  EXPECT_EQ(def.find("input")->params.text("uri"), "rtsp://cam/stream");

  const auto two = parse(R"(stages:
  - {id: a, type: decode, uri: a.mp4}
  - {id: b, type: decode, uri: b.mp4}
  - {type: pyramid_fusion, inputs: [a, b]}
  - {type: encode, output: out.mp4}
)",
                         overrides);
  EXPECT_EQ(two.find("a")->params.text("uri"), "rtsp://cam/stream");
  EXPECT_EQ(two.find("b")->params.text("uri"), "b.mp4");
}

TEST(Overrides, InputSuppliesAMissingRequiredUri) {
  ConfigOverrides overrides;
  overrides.inputs = {"in.mp4"};
  const auto def = parse("stages:\n  - {type: decode}\n  - {type: encode, output: out.mp4}\n", overrides);
  EXPECT_EQ(def.find("decode")->params.text("uri"), "in.mp4");
}

TEST(Overrides, OutputReplacesTheOutputOfTheFirstEncode) {
  ConfigOverrides overrides;
  overrides.output = "result.mkv";
  const auto def = parse(kTwoSinks, overrides);
  EXPECT_EQ(def.find("out")->params.text("output"), "result.mkv");
  EXPECT_EQ(def.find("skelout")->params.text("output"), "skel.mkv");
}

TEST(Overrides, OutputWithoutEncodeStage) {
  ConfigOverrides overrides;
  overrides.output = "out.mp4";
  const auto issue = only_issue("input: in.mp4\nstages:\n  - {type: luma_histogram, output: h.jsonl}\n", overrides);
  EXPECT_EQ(issue.format(), "command line: -o: the pipeline has no encode stage");
}

// The stage's own check sees the overriding value and names the option.
TEST(Overrides, OutputCheckedByTheEncodeStage) {
  ConfigOverrides overrides;
  overrides.output = "out.avi";
  const auto issue = only_issue(kTwoSinks, overrides);
  EXPECT_EQ(issue.format().rfind("command line: -o: unsupported output extension", 0), 0u) << issue.format();
}

TEST(Overrides, InputWithoutDecodeStage) {
  ConfigOverrides overrides;
  overrides.inputs = {"in.mp4"};
  const auto issues = test::issues_of("stages:\n  - {type: encode, output: out.mp4}\n", overrides);
  const auto all = test::formatted(issues);
  EXPECT_NE(all.find("command line: -i: the pipeline has no decode stage"), std::string::npos) << all;
}

TEST(Overrides, DeviceReplacesTheFilesDevice) {
  ConfigOverrides overrides;
  overrides.device = "cuda:1";
  EXPECT_EQ(parse(std::string("device: cpu\n") + test::kSimplePipeline, overrides).device, "cuda:1");
}

TEST(Overrides, DeviceIsValidated) {
  ConfigOverrides overrides;
  overrides.device = "gpu";
  EXPECT_EQ(only_issue(test::kSimplePipeline, overrides).format(),
            "command line: --device: must be auto, cpu, cuda, cuda:N, a list cuda:N,M or cuda:all (got 'gpu')");
}

TEST(Overrides, DropReplacesTheFilesPolicyAndIsValidated) {
  ConfigOverrides overrides;
  overrides.drop = "newest";
  EXPECT_EQ(parse(std::string("drop: never\nrealtime: true\n") + test::kSimplePipeline, overrides).drop,
            DropPolicy::Newest);
  EXPECT_EQ(parse(test::kSimplePipeline, {}).drop, DropPolicy::Auto);
  EXPECT_EQ(parse(test::kSimplePipeline, {}).realtime, std::nullopt);
  EXPECT_EQ(parse(std::string("realtime: true\n") + test::kSimplePipeline, {}).realtime, true);
  EXPECT_EQ(parse(std::string("realtime: false\n") + test::kSimplePipeline, {}).realtime, false);
  overrides.drop = "latest";
  EXPECT_EQ(only_issue(test::kSimplePipeline, overrides).format(),
            "command line: --drop: must be auto, oldest, newest or never (got 'latest')");
}

TEST(Overrides, SetParsesTheValueAsYaml) {
  const auto def = parse(kTwoSinks, sets({"denoise.h=15", "denoise.patch=5", "fused.gain=[1, 2.5]",
                                          "fused.rule=average", "skel.threshold=100", "out.crf=23"}));
  EXPECT_DOUBLE_EQ(def.find("denoise")->params.real("h"), 15.0);
  EXPECT_EQ(def.find("denoise")->params.integer("patch"), 5);
  EXPECT_EQ(def.find("fused")->params.list("gain"), (std::vector<double>{1.0, 2.5}));
  EXPECT_EQ(def.find("fused")->params.text("rule"), "average");
  EXPECT_EQ(def.find("skel")->params.integer("threshold"), 100);
  EXPECT_EQ(def.find("out")->params.integer("crf"), 23);
}

TEST(Overrides, SetAppliesBeforeValidationSoItCanFixAFileValue) {
  const std::string bad = "input: in.mp4\nstages:\n  - {id: denoise, type: nlmeans, h: -2}\n";
  EXPECT_EQ(test::issues_of(bad).size(), 1u);
  EXPECT_DOUBLE_EQ(parse(bad, sets({"denoise.h=3"})).find("denoise")->params.real("h"), 3.0);
}

TEST(Overrides, SetNullIsTheNullSink) {
  EXPECT_EQ(parse(kTwoSinks, sets({"out.output=null"})).find("out")->params.text("output"), "null");
  EXPECT_EQ(only_issue(kTwoSinks, sets({"out.output="})).format(),
            "command line: --set out.output: must be a string (got nothing)");
}

TEST(Overrides, LaterSetWins) {
  const auto def = parse(kTwoSinks, sets({"denoise.h=15", "denoise.h=20"}));
  EXPECT_DOUBLE_EQ(def.find("denoise")->params.real("h"), 20.0);
}

TEST(Overrides, SetReachesTheImplicitSource) {
  const auto def = parse(kTwoSinks, sets({"input.uri=clip.mkv", "input.on_error=stop"}));
  EXPECT_EQ(def.find("input")->params.text("uri"), "clip.mkv");
  EXPECT_EQ(def.find("input")->params.text("on_error"), "stop");
  EXPECT_EQ(only_issue(kTwoSinks, sets({"input.on_error=halt"})).format(),
            "command line: --set input.on_error: must be one of skip|stop (got 'halt')");
}

TEST(Overrides, SetRangeErrorNamesTheOption) {
  EXPECT_EQ(only_issue(kTwoSinks, sets({"denoise.h=-1"})).format(), "command line: --set denoise.h: must be > 0 (got -1)");
  EXPECT_EQ(only_issue(kTwoSinks, sets({"denoise.patch=4"})).format(),
            "command line: --set denoise.patch: must be odd (got 4)");
  EXPECT_EQ(only_issue(kTwoSinks, sets({"fused.gain=[1, 99]"})).format(),
            "command line: --set fused.gain[1]: must be in [0, 16] (got 99)");
  EXPECT_EQ(only_issue(kTwoSinks, sets({"skel.threshold=[1]"})).format(),
            "command line: --set skel.threshold: must be an integer or otsu (got a list)");
}

TEST(Overrides, SetValueCheckedByTheStagesOwnCheck) {
  EXPECT_EQ(only_issue(kTwoSinks, sets({"fused.gain=[1, 1, 1, 1, 1]"})).format(),
            "command line: --set fused.gain: has 5 values but 5 levels have only 4 detail levels");
}

TEST(Overrides, MalformedSet) {
  for (const std::string bad : {"denoise.h", "h=3", ".h=3", "denoise.=3", "=3"}) {
    const auto issue = only_issue(kTwoSinks, sets({bad}));
    EXPECT_EQ(issue.format(), "command line: --set: must be ID.PARAM=VALUE (got '" + bad + "')");
  }
}

TEST(Overrides, SetUnknownStageId) {
  EXPECT_EQ(only_issue(kTwoSinks, sets({"denoize.h=3"})).format(),
            "command line: --set denoize.h: unknown stage id 'denoize'; did you mean 'denoise'?");
}

TEST(Overrides, SetUnknownParameter) {
  EXPECT_EQ(only_issue(kTwoSinks, sets({"denoise.hh=3"})).format(),
            "command line: --set denoise.hh: unknown parameter of nlmeans; did you mean 'h'?");
  EXPECT_EQ(only_issue(kTwoSinks, sets({"denoise.strength=3"})).format(),
            "command line: --set denoise.strength: unknown parameter of nlmeans (expected: h, patch, search)");
}

TEST(Overrides, SetValueThatIsNotYaml) {
  const auto issue = only_issue(kTwoSinks, sets({"fused.gain=[1, 2"}));
  EXPECT_EQ(issue.file, "command line");
  EXPECT_EQ(issue.key, "--set fused.gain");
  EXPECT_EQ(issue.message.rfind("cannot read the value as YAML: ", 0), 0u) << issue.message;
}

TEST(Overrides, FileAndCommandLineIssuesAreAllReportedFileFirst) {
  ConfigOverrides overrides = sets({"nope.h=1", "denoise.h=0"});
  overrides.device = "tpu";
  const auto issues = test::issues_of("input: in.mp4\nstages:\n  - {id: denoise, type: nlmeans, patch: 2}\n", overrides);
  ASSERT_EQ(issues.size(), 4u) << test::formatted(issues);
  EXPECT_EQ(issues[0].format(), "test.yaml:3:41: stages[0].patch: must be odd (got 2)");
  for (std::size_t i = 1; i < issues.size(); ++i) EXPECT_EQ(issues[i].file, "command line");
  const auto all = test::formatted(issues);
  EXPECT_NE(all.find("--device: must be auto"), std::string::npos) << all;
  EXPECT_NE(all.find("--set nope.h: unknown stage id 'nope'"), std::string::npos) << all;
  EXPECT_NE(all.find("--set denoise.h: must be > 0 (got 0)"), std::string::npos) << all;
}

}  // namespace
}  // namespace fp
