// Pipelines on several inputs: the streams a file or -i gives, and the pipeline each stream
// runs (its input, {stream} in output paths, ids prefixed with its name).
#include <gtest/gtest.h>

#include "config_test_util.hpp"
#include "pipeline/definition/stream_pipeline.hpp"

namespace fp {
namespace {

const char* const kTwoStreams = R"(inputs:
  - 'testsrc://64x48@30?frames=3'
  - {uri: 'rtsp://cam/stream', name: door, timeout_ms: 2000}
stages:
  - {id: smooth, type: mean_smooth, radius: 2}
  - {id: fused, type: pyramid_fusion, inputs: [input, smooth]}
  - {id: out, type: encode, output: 'out/{stream}.mkv'}
)";

TEST(Streams, InputsListGivesOneStreamEach) {
  const auto definition = parse_pipeline(kTwoStreams, "test.yaml");
  ASSERT_EQ(definition.streams.size(), 2u);
  EXPECT_EQ(definition.stream_stage, "input");
  EXPECT_EQ(definition.streams[0].name, "0");
  EXPECT_EQ(definition.streams[0].input.text("uri"), "testsrc://64x48@30?frames=3");
  EXPECT_EQ(definition.streams[1].name, "door");
  EXPECT_EQ(definition.streams[1].input.text("uri"), "rtsp://cam/stream");
  EXPECT_EQ(definition.streams[1].input.integer("timeout_ms"), 2000);
  EXPECT_EQ(definition.streams[0].input.integer("timeout_ms"), 5000);  // each item has its own parameters
  EXPECT_EQ(definition.stages.front().params.text("uri"), "testsrc://64x48@30?frames=3");  // the graph's input
}

TEST(Streams, EachStreamRunsItsOwnCopyOfTheGraph) {
  const auto definition = parse_pipeline(kTwoStreams, "test.yaml");
  const auto door = stream_pipeline(definition, 1);
  EXPECT_TRUE(door.streams.empty());
  EXPECT_TRUE(door.files.empty());  // every stream's files: checked when loaded, no part of one run
  EXPECT_FALSE(definition.files.empty());
  // The rest as the whole pipeline has it (stream_pipeline copies field by field).
  EXPECT_EQ(door.file, definition.file);
  EXPECT_EQ(door.device, definition.device);
  EXPECT_EQ(door.realtime, definition.realtime);
  EXPECT_EQ(door.drop, definition.drop);
  EXPECT_EQ(door.jobs, definition.jobs);
  ASSERT_EQ(door.stages.size(), 4u);
  EXPECT_EQ(door.stages[0].id, "door/input");
  EXPECT_EQ(door.stages[0].params.text("uri"), "rtsp://cam/stream");
  EXPECT_EQ(door.stages[2].id, "door/fused");
  EXPECT_EQ(door.stages[2].inputs, (std::vector<std::string>{"door/input", "door/smooth"}));
  EXPECT_EQ(door.stages[3].params.text("output"), "out/door.mkv");
  EXPECT_EQ(stream_pipeline(definition, 0).stages[3].params.text("output"), "out/0.mkv");
  // Without streams the pipeline runs as written.
  const auto plain = parse_pipeline("input: testsrc://8x8\nstages:\n  - {type: encode, output: 'a{stream}.mp4'}\n", "t.yaml");
  EXPECT_TRUE(plain.streams.empty());
  EXPECT_EQ(stream_pipeline(plain, 0).stages[1].params.text("output"), "a{stream}.mp4");
}

TEST(Streams, OneStreamKeepsItsIdsAndNamesItsOutput) {
  const auto definition =
      parse_pipeline("inputs: [{uri: 'testsrc://8x8', name: cam}]\nstages:\n  - {type: encode, output: '{stream}.mp4'}\n",
                     "t.yaml");
  ASSERT_EQ(definition.streams.size(), 1u);
  const auto one = stream_pipeline(definition, 0);
  EXPECT_EQ(one.stages[0].id, "input");
  EXPECT_EQ(one.stages[1].params.text("output"), "cam.mp4");
}

TEST(Streams, RepeatedInputOptionMakesStreamsFromTheFilesInput) {
  ConfigOverrides overrides;
  overrides.inputs = {"a.mp4", "b.mp4", "c.mp4"};
  overrides.sets = {"input.timeout_ms=900"};
  const auto definition = parse_pipeline(
      "input: {uri: 'x.mp4', on_error: stop}\nstages:\n  - {type: encode, output: 'o/{stream}.mp4'}\n", "t.yaml", overrides);
  ASSERT_EQ(definition.streams.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(definition.streams[i].name, std::to_string(i));
    EXPECT_EQ(definition.streams[i].input.text("uri"), overrides.inputs[i]);
    EXPECT_EQ(definition.streams[i].input.text("on_error"), "stop");  // the file's other parameters
    EXPECT_EQ(definition.streams[i].input.integer("timeout_ms"), 900);  // --set reaches every stream
  }
  // --set of an output path written as {stream}... takes the text, not a YAML map.
  overrides.sets.push_back("encode.output={stream}.mkv");
  const auto templated = parse_pipeline(
      "input: {uri: 'x.mp4', on_error: stop}\nstages:\n  - {type: encode, output: 'o/{stream}.mp4'}\n", "t.yaml", overrides);
  EXPECT_EQ(stream_pipeline(templated, 2).stages[1].params.text("output"), "2.mkv");
  overrides.sets.pop_back();
  // One -i for a file that lists several: that input alone.
  overrides.inputs = {"only.mp4"};
  const auto single = parse_pipeline(kTwoStreams, "t.yaml", overrides);
  ASSERT_EQ(single.streams.size(), 1u);
  EXPECT_EQ(single.streams[0].input.text("uri"), "only.mp4");
}

TEST(Streams, RepeatedInputOptionNeedsOutputTemplates) {
  ConfigOverrides overrides;
  overrides.inputs = {"a.mp4", "b.mp4"};
  const auto issues = test::issues_of("input: x.mp4\nstages:\n  - {type: encode, output: out.mp4}\n", overrides);
  ASSERT_EQ(issues.size(), 1u) << test::formatted(issues);
  EXPECT_NE(issues[0].message.find("put {stream} in this path"), std::string::npos) << issues[0].message;
  const auto bad_uri = test::issues_of("input: x.mp4\nstages:\n  - {type: encode, output: '{stream}.mp4'}\n",
                                       ConfigOverrides{.inputs = {"a.mp4", "rtsp://h/a?transport=quic"}});
  ASSERT_EQ(bad_uri.size(), 1u) << test::formatted(bad_uri);
  EXPECT_NE(bad_uri[0].message.find("transport must be tcp or udp"), std::string::npos) << bad_uri[0].message;
}

}  // namespace
}  // namespace fp
