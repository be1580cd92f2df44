// `framepipe run --shard I/N` (pipeline/stream_list/shard_streams.hpp): of a run's streams, exactly those
// whose rendezvous owner is I are kept, in their order, so that N runs over one list run each
// input once; a run on one input is sharded by its file's stem.
#include "pipeline/stream_list/shard_streams.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "pipeline/config/loader.hpp"

namespace fp {
namespace {

// A pipeline on `count` named inputs, as a list of files would give them.
PipelineDefinition pipeline_on(int count) {
  std::string yaml = "inputs:\n";
  for (int i = 0; i < count; ++i)
    yaml += "  - {uri: 'testsrc://32x32@25?frames=2', name: clip-" + std::to_string(100 + i) + "}\n";
  yaml += "stages:\n  - {id: out, type: encode, output: 'out/{stream}.y4m'}\n";
  return parse_pipeline(yaml, "t.yaml");
}

std::vector<std::string> names_of(const PipelineDefinition& definition) {
  std::vector<std::string> names;
  for (const auto& stream : definition.streams) names.push_back(stream.name);
  return names;
}

TEST(ShardStreams, EachInputIsKeptByExactlyOneShardInItsOrder) {
  const PipelineDefinition all = pipeline_on(20);
  const auto all_names = names_of(all);
  std::multiset<std::string> kept_somewhere;
  for (std::uint32_t ordinal = 0; ordinal < 3; ++ordinal) {
    PipelineDefinition definition = all;
    const ShardSelection selection = select_shard_streams(definition, Shard{ordinal, 3});
    EXPECT_EQ(selection.inputs, 20u);
    EXPECT_EQ(selection.selected, definition.streams.size());
    EXPECT_EQ(definition.stream_stage, all.stream_stage);
    std::vector<std::string> expected;  // the owned names, in the list's order
    for (const auto& name : all_names)
      if (rendezvous_owner(name, 3) == ordinal) expected.push_back(name);
    EXPECT_EQ(names_of(definition), expected) << "shard " << ordinal;
    for (const auto& stream : definition.streams) kept_somewhere.insert(stream.name);
  }
  // Disjoint (no name twice) and together the whole list.
  EXPECT_EQ(kept_somewhere, std::multiset<std::string>(all_names.begin(), all_names.end()));
}

TEST(ShardStreams, OneShardOfOneKeepsEverything) {
  PipelineDefinition definition = pipeline_on(5);
  const ShardSelection selection = select_shard_streams(definition, Shard{0, 1});
  EXPECT_EQ(selection.selected, 5u);
  EXPECT_EQ(definition.streams.size(), 5u);
  EXPECT_EQ(selection.describe(), "shard 0/1: 5 of the 5 inputs are this shard's");
}

TEST(ShardStreams, AShardOfNoneSaysSo) {
  // 3 inputs over 8 shards: some shard owns none of them.
  const PipelineDefinition all = pipeline_on(3);
  std::uint32_t idle = 8;
  for (std::uint32_t ordinal = 0; ordinal < 8 && idle == 8; ++ordinal) {
    bool owns_any = false;
    for (const auto& name : names_of(all)) owns_any = owns_any || rendezvous_owner(name, 8) == ordinal;
    if (!owns_any) idle = ordinal;
  }
  ASSERT_LT(idle, 8u);
  PipelineDefinition definition = all;
  const ShardSelection selection = select_shard_streams(definition, Shard{idle, 8});
  EXPECT_TRUE(definition.streams.empty());
  EXPECT_EQ(selection.selected, 0u);
  EXPECT_EQ(selection.describe(), "shard " + std::to_string(idle) + "/8: none of the 3 inputs is this shard's");
}

// `input:` (or one -i) is one input named as a list line would name it: a file by its stem.
TEST(ShardStreams, ARunOnOneInputIsShardedByItsFilesStem) {
  const std::string yaml = "input: /data/in/cam7.mp4\nstages:\n  - {id: out, type: encode, output: out.y4m}\n";
  const PipelineDefinition one = parse_pipeline(yaml, "t.yaml");
  ASSERT_TRUE(one.streams.empty());
  EXPECT_EQ(single_input_name(one), "cam7");
  for (std::uint32_t ordinal = 0; ordinal < 3; ++ordinal) {
    PipelineDefinition definition = one;
    const ShardSelection selection = select_shard_streams(definition, Shard{ordinal, 3});
    const bool owner = rendezvous_owner("cam7", 3) == ordinal;
    EXPECT_EQ(selection.inputs, 1u);
    EXPECT_EQ(selection.selected, owner ? 1u : 0u);
    EXPECT_EQ(selection.describe(), "shard " + std::to_string(ordinal) + "/3: its one input, cam7, is " +
                                        (owner ? "" : "not ") + "this shard's");
  }
  const PipelineDefinition testsrc = parse_pipeline(
      "input: testsrc://32x32@25?frames=2\nstages:\n  - {id: out, type: encode, output: out.y4m}\n", "t.yaml");
  EXPECT_EQ(single_input_name(testsrc), "0");
}

TEST(ShardStreams, StatsJsonSaysTheShardFirst) {
  const ShardSelection selection{.shard = Shard{1, 3}, .inputs = 20, .selected = 7};
  const auto doc = nlohmann::ordered_json::parse(stats_json_with_shard(R"({"streams": [], "frames": 12})", selection));
  EXPECT_EQ(doc.begin().key(), "shard");
  EXPECT_EQ(doc["shard"],
            nlohmann::ordered_json::parse(R"({"ordinal": 1, "replicas": 3, "inputs": 20, "selected": 7})"));
  EXPECT_EQ(doc["frames"], 12);
}

}  // namespace
}  // namespace fp
