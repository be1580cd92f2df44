// Valid pipelines: what load_pipeline makes of them (ids, resolved inputs, every
// parameter present with its table's type).
#include <gtest/gtest.h>

#include "config_test_util.hpp"
#include "pipeline/definition/device_names.hpp"
#include "stages/registry.hpp"

namespace fp {
namespace {

using Inputs = std::vector<std::string>;

PipelineDefinition parse(const std::string& yaml) {
  try {
    return parse_pipeline(yaml, "test.yaml");
  } catch (const ConfigError& e) {
    ADD_FAILURE() << e.what();
    throw;
  }
}

TEST(ValidPipeline, TopLevelInputBecomesAFirstDecodeStage) {
  const auto def = parse(test::kSimplePipeline);
  ASSERT_EQ(def.stages.size(), 3u);
  const auto& source = def.stages[0];
  EXPECT_EQ(source.id, "input");
  EXPECT_EQ(source.type, "decode");
  EXPECT_TRUE(source.inputs.empty());
  EXPECT_EQ(source.params.text("uri"), "testsrc://64x48@30?frames=3");
  EXPECT_EQ(source.line, 1);
  EXPECT_EQ(source.column, 8);
  EXPECT_EQ(def.file, "test.yaml");
  EXPECT_EQ(def.device, "auto");
}

TEST(ValidPipeline, TopLevelInputMayBeAMapOfDecodeParameters) {
  const auto def = parse(R"(input: {uri: clip.ts, on_error: stop}
stages:
  - {type: encode, output: out.mp4}
)");
  const auto& source = def.stages[0];
  EXPECT_EQ(source.id, "input");
  EXPECT_EQ(source.type, "decode");
  EXPECT_EQ(source.params.text("uri"), "clip.ts");
  EXPECT_EQ(source.params.text("on_error"), "stop");
  EXPECT_EQ(parse(test::kSimplePipeline).stages[0].params.text("on_error"), "skip") << "the default";
}

TEST(ValidPipeline, StagesKeepFileOrderAndPosition) {
  const auto def = parse(test::kSimplePipeline);
  EXPECT_EQ(def.stages[1].id, "denoise");
  EXPECT_EQ(def.stages[1].line, 3);
  EXPECT_EQ(def.stages[1].column, 5);
  EXPECT_EQ(def.stages[2].id, "out");
  EXPECT_EQ(def.stages[2].line, 4);
}

TEST(ValidPipeline, DefaultsAreFilledIn) {
  const auto def = parse(test::kSimplePipeline);
  const auto& nlmeans = def.find("denoise")->params;
  EXPECT_DOUBLE_EQ(nlmeans.real("h"), 12.0);
  EXPECT_EQ(nlmeans.integer("patch"), 7);
  EXPECT_EQ(nlmeans.integer("search"), 21);
  const auto& encode = def.find("out")->params;
  EXPECT_EQ(encode.text("output"), "out.mp4");
  EXPECT_EQ(encode.text("codec"), "h264");
  EXPECT_EQ(encode.integer("crf"), 18);
  EXPECT_EQ(encode.text("preset"), "veryfast");
}

// Every parameter of every stage type is present, holding the ParamValue alternative
// that its type promises (what the stages' create functions rely on).
TEST(ValidPipeline, EveryParameterHasItsTablesType) {
  const auto def = parse(R"(input: in.mp4
stages:
  - {type: luma_histogram, output: h.csv}
  - {type: mean_smooth}
  - {type: nlmeans}
  - {type: pyramid_fusion, inputs: [input, nlmeans]}
  - {type: thinning}
  - {type: encode, output: out.mkv}
)");
  std::size_t checked = 0;
  for (const auto& stage : def.stages) {
    const StageSpec* spec = find_stage(stage.type);
    ASSERT_NE(spec, nullptr);
    EXPECT_EQ(stage.params.values().size(), spec->params.size()) << stage.id;
    for (const auto& param : spec->params) {
      ASSERT_TRUE(stage.params.has(param.name)) << stage.id << "." << param.name;
      const ParamValue& value = stage.params.get(param.name);
      switch (param.type) {
        case ParamType::Int:
          EXPECT_TRUE(std::holds_alternative<std::int64_t>(value) || std::holds_alternative<std::string>(value));
          break;
        case ParamType::Float: EXPECT_TRUE(std::holds_alternative<double>(value)); break;
        case ParamType::String:
        case ParamType::Path:
        case ParamType::Enum: EXPECT_TRUE(std::holds_alternative<std::string>(value)); break;
        case ParamType::FloatList: EXPECT_TRUE(std::holds_alternative<std::vector<double>>(value)); break;
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 14u);
  EXPECT_TRUE(def.find("thinning")->params.is_keyword("threshold"));
  EXPECT_EQ(def.find("thinning")->params.text("threshold"), "otsu");
  EXPECT_TRUE(def.find("pyramid_fusion")->params.list("gain").empty());
}

TEST(ValidPipeline, ValuesAreConvertedToTheTablesType) {
  const auto def = parse(R"(input: in.mp4
stages:
  - {id: d, type: nlmeans, h: 12, patch: +5}
  - {id: t, type: thinning, threshold: 128}
  - {id: m, type: mean_smooth, radius: "3"}
  - {id: f, type: pyramid_fusion, inputs: [input, d], gain: [1, 1.5, 2e0], levels: 4}
  - {type: encode, input: f, output: out.y4m, codec: rawvideo}
)");
  EXPECT_DOUBLE_EQ(std::get<double>(def.find("d")->params.get("h")), 12.0);  // an int is a fine real
  EXPECT_EQ(def.find("d")->params.integer("patch"), 5);
  EXPECT_FALSE(def.find("t")->params.is_keyword("threshold"));
  EXPECT_EQ(def.find("t")->params.integer("threshold"), 128);
  EXPECT_EQ(def.find("m")->params.integer("radius"), 3);  // a quoted number is still a number
  EXPECT_EQ(def.find("f")->params.list("gain"), (std::vector<double>{1.0, 1.5, 2.0}));
  EXPECT_EQ(def.find("encode")->params.text("codec"), "rawvideo");
}

TEST(ValidPipeline, IdDefaultsToTheType) {
  const auto def = parse(R"(input: in.mp4
stages:
  - type: mean_smooth
  - type: encode
    output: out.mp4
)");
  EXPECT_EQ(def.stages[1].id, "mean_smooth");
  EXPECT_EQ(def.stages[2].id, "encode");
  EXPECT_EQ(def.stages[2].inputs, Inputs{"mean_smooth"});
}

TEST(ValidPipeline, ImplicitInputIsTheNearestEarlierStageWithAnOutput) {
  const auto def = parse(R"(input: in.mp4
stages:
  - {id: a, type: mean_smooth}
  - {id: first_out, type: encode, output: a.mp4}
  - {id: b, type: nlmeans}
  - {id: second_out, type: encode, output: b.mp4}
)");
  EXPECT_EQ(def.find("a")->inputs, Inputs{"input"});
  EXPECT_EQ(def.find("first_out")->inputs, Inputs{"a"});
  EXPECT_EQ(def.find("b")->inputs, Inputs{"a"});  // skips the encode, which has no output
  EXPECT_EQ(def.find("second_out")->inputs, Inputs{"b"});
}

TEST(ValidPipeline, MultiInputKeepsTheWrittenOrder) {
  const auto def = parse(R"(input: in.mp4
stages:
  - {id: denoise, type: nlmeans}
  - {id: fused, type: pyramid_fusion, inputs: [denoise, input]}
  - {id: self, type: pyramid_fusion, inputs: [input, input]}
  - {type: encode, output: out.mp4}
)");
  EXPECT_EQ(def.find("fused")->inputs, (Inputs{"denoise", "input"}));
  EXPECT_EQ(def.find("self")->inputs, (Inputs{"input", "input"}));
  EXPECT_EQ(def.find("encode")->inputs, Inputs{"self"});
}

TEST(ValidPipeline, TwoEncodeSinksFromOneSource) {
  const auto def = parse(R"(input: in.mp4
stages:
  - {id: full, type: encode, output: full.mp4}
  - {id: copy, type: encode, input: input, output: copy.mkv}
)");
  EXPECT_EQ(def.find("full")->inputs, Inputs{"input"});
  EXPECT_EQ(def.find("copy")->inputs, Inputs{"input"});
}

// `null` is YAML's null, but as a path it is the null sink's name and must survive.
TEST(ValidPipeline, WrittenNullIsTextForStrings) {
  const auto def = parse(R"(input: in.mp4
stages:
  - {id: a, type: encode, output: null}
  - id: b
    type: encode
    input: input
    output: null
)");
  EXPECT_EQ(def.find("a")->params.text("output"), "null");
  EXPECT_EQ(def.find("b")->params.text("output"), "null");
}

TEST(ValidPipeline, AStageMayReadALaterOne) {
  const auto def = parse(R"(input: in.mp4
stages:
  - {id: out, type: encode, input: smooth, output: out.mp4}
  - {id: smooth, type: mean_smooth, input: input}
)");
  EXPECT_EQ(def.find("out")->inputs, Inputs{"smooth"});
}

TEST(ValidPipeline, AcceptedDevices) {
  for (const std::string device : {"auto", "cpu", "cuda", "cuda:0", "cuda:12", "cuda:all", "cuda:0,1", "cuda:3,1,2"}) {
    const auto def = parse("device: " + device + "\n" + test::kSimplePipeline);
    EXPECT_EQ(def.device, device);
  }
}

// Lists name each GPU once, in the order given; anything else is not a list.
TEST(ValidPipeline, CudaDeviceLists) {
  EXPECT_EQ(cuda_ordinals("cuda:3,1,2"), (std::vector<int>{3, 1, 2}));
  EXPECT_EQ(cuda_ordinals("cuda:7"), (std::vector<int>{7}));
  for (const std::string bad : {"cuda:0,0", "cuda:0,", "cuda:,1", "cuda:all,1", "cuda:1,x", "cuda", "cpu", "cuda:all",
                                "cuda:1234567890"})
    EXPECT_EQ(cuda_ordinals(bad), std::nullopt) << bad;
  for (const std::string bad : {"cuda:0,0", "cuda:0,", "cuda:all,1", "gpu:all", "cuda:ALL"})
    EXPECT_FALSE(is_valid_device(bad)) << bad;
}

TEST(ValidPipeline, DesignExampleFile) {
  const auto path = test::config_data("valid/design_example.yaml");
  const auto def = load_pipeline(path);
  EXPECT_EQ(def.file, path.string());
  EXPECT_EQ(def.device, "cpu");
  ASSERT_EQ(def.stages.size(), 8u);
  EXPECT_EQ(def.find("hist")->inputs, Inputs{"input"});
  EXPECT_EQ(def.find("denoise")->inputs, Inputs{"hist"});
  EXPECT_EQ(def.find("fused")->inputs, (Inputs{"input", "denoise"}));
  EXPECT_EQ(def.find("skel")->inputs, Inputs{"smooth"});
  EXPECT_EQ(def.find("out")->inputs, Inputs{"fused"});
  EXPECT_EQ(def.find("skelout")->inputs, Inputs{"skel"});
  EXPECT_EQ(def.find("fused")->params.text("rule"), "max_energy");
  EXPECT_EQ(def.find("skelout")->line, 12);
}

TEST(ValidPipeline, TwoDecodeStagesWithoutTopLevelInput) {
  const auto def = load_pipeline(test::config_data("valid/two_sources.yaml"));
  ASSERT_EQ(def.stages.size(), 4u);
  EXPECT_EQ(def.stages[0].id, "left");
  EXPECT_EQ(def.find("pyramid_fusion")->inputs, (Inputs{"left", "right"}));
  EXPECT_EQ(def.find("pyramid_fusion")->params.list("gain"), (std::vector<double>{1.5, 1.2}));
  EXPECT_EQ(def.find("encode")->inputs, Inputs{"pyramid_fusion"});
  EXPECT_EQ(def.find("encode")->params.integer("crf"), 23);
}

TEST(LoadPipeline, MissingFileIsOneIssue) {
  const auto path = test::config_data("no/such/file.yaml");
  try {
    load_pipeline(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_EQ(e.issues()[0].format(), path.string() + ": cannot read: No such file or directory");
  }
}

TEST(LoadPipeline, DirectoryIsNotReadable) {
  try {
    load_pipeline(test::config_data("valid"));
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    ASSERT_EQ(e.issues().size(), 1u);
    EXPECT_NE(e.issues()[0].message.find("cannot read: "), std::string::npos);
  }
}

TEST(ParsePipeline, EmptyTextIsReported) {
  const auto issues = test::issues_of("");
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].format(), "test.yaml:1:1: the file is empty; a pipeline needs at least a `stages` list");
}

}  // namespace
}  // namespace fp
