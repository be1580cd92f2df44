// PipelineGraph (nodes, inputs, consumers, topological order) and find_cycle.
#include <gtest/gtest.h>

#include <stdexcept>

#include "pipeline/config/loader.hpp"
#include "pipeline/definition/graph.hpp"

namespace fp {
namespace {

using Ids = std::vector<std::string>;
using Indices = std::vector<int>;

StageDefinition stage(std::string id, std::string type, Ids inputs = {}) {
  StageDefinition s;
  s.id = std::move(id);
  s.type = std::move(type);
  s.inputs = std::move(inputs);
  return s;
}

Ids order_ids(const PipelineGraph& graph) {
  Ids ids;
  for (const int i : graph.topological_order()) ids.push_back(graph.nodes()[i].stage->id);
  return ids;
}

TEST(PipelineGraph, NodesFollowTheFileWithInputsAndConsumers) {
  const auto def = parse_pipeline(R"(input: in.mp4
stages:
  - {id: denoise, type: nlmeans}
  - {id: fused, type: pyramid_fusion, inputs: [input, denoise]}
  - {id: out, type: encode, output: out.mp4}
  - {id: raw, type: encode, input: input, output: raw.mkv}
)",
                                  "graph.yaml");
  const PipelineGraph graph(def);
  ASSERT_EQ(graph.nodes().size(), 5u);
  EXPECT_EQ(graph.index_of("input"), 0);
  EXPECT_EQ(graph.index_of("raw"), 4);
  EXPECT_EQ(graph.index_of("missing"), -1);

  const auto& nodes = graph.nodes();
  EXPECT_EQ(nodes[0].stage, &def.stages[0]);
  EXPECT_EQ(nodes[0].spec->type, "decode");
  EXPECT_EQ(nodes[0].inputs, Indices{});
  EXPECT_EQ(nodes[0].consumers, (Indices{1, 2, 4}));
  EXPECT_EQ(nodes[1].consumers, Indices{2});
  EXPECT_EQ(nodes[2].inputs, (Indices{0, 1}));
  EXPECT_EQ(nodes[2].consumers, Indices{3});
  EXPECT_EQ(nodes[3].inputs, Indices{2});
  EXPECT_TRUE(nodes[3].consumers.empty());
  EXPECT_EQ(graph.topological_order(), (Indices{0, 1, 2, 3, 4}));
}

TEST(PipelineGraph, OrderRunsInputsFirstAndStaysCloseToTheFile) {
  PipelineDefinition def;
  def.stages = {stage("out", "encode", {"b"}), stage("a", "mean_smooth", {"src"}), stage("src", "decode"),
                stage("b", "nlmeans", {"a"}), stage("hist", "luma_histogram", {"src"})};
  const PipelineGraph graph(def);
  EXPECT_EQ(order_ids(graph), (Ids{"src", "a", "b", "out", "hist"}));
}

TEST(PipelineGraph, EveryStageAfterItsInputs) {
  PipelineDefinition def;
  def.stages = {stage("f", "pyramid_fusion", {"d", "s"}), stage("s", "mean_smooth", {"d"}),
                stage("o2", "encode", {"s"}),           stage("d", "decode"),
                stage("o1", "encode", {"f"})};
  const PipelineGraph graph(def);
  const auto& order = graph.topological_order();
  ASSERT_EQ(order.size(), def.stages.size());
  std::vector<int> position(order.size());
  for (std::size_t k = 0; k < order.size(); ++k) position[order[k]] = static_cast<int>(k);
  for (std::size_t i = 0; i < graph.nodes().size(); ++i)
    for (const int input : graph.nodes()[i].inputs) EXPECT_LT(position[input], position[i]);
}

TEST(PipelineGraph, SameInputTwiceIsOneConsumer) {
  PipelineDefinition def;
  def.stages = {stage("src", "decode"), stage("f", "pyramid_fusion", {"src", "src"})};
  const PipelineGraph graph(def);
  EXPECT_EQ(graph.nodes()[1].inputs, (Indices{0, 0}));
  EXPECT_EQ(graph.nodes()[0].consumers, Indices{1});
  EXPECT_EQ(graph.topological_order(), (Indices{0, 1}));
}

TEST(PipelineGraph, RejectsDefinitionsThatWereNotValidated) {
  PipelineDefinition unknown_type;
  unknown_type.stages = {stage("x", "nosuchstage")};
  EXPECT_THROW(PipelineGraph{unknown_type}, std::invalid_argument);

  PipelineDefinition unknown_input;
  unknown_input.stages = {stage("x", "mean_smooth", {"ghost"})};
  EXPECT_THROW(PipelineGraph{unknown_input}, std::invalid_argument);

  PipelineDefinition cyclic;
  cyclic.stages = {stage("a", "mean_smooth", {"b"}), stage("b", "mean_smooth", {"a"})};
  EXPECT_THROW(PipelineGraph{cyclic}, std::invalid_argument);
}

TEST(FindCycle, NoneInADag) {
  EXPECT_TRUE(find_cycle({}).empty());
  EXPECT_TRUE(find_cycle({stage("a", "decode"), stage("b", "mean_smooth", {"a"}),
                          stage("c", "pyramid_fusion", {"a", "b"})})
                  .empty());
}

TEST(FindCycle, SelfLoop) { EXPECT_EQ(find_cycle({stage("a", "mean_smooth", {"a"})}), (Ids{"a", "a"})); }

TEST(FindCycle, TwoStages) {
  EXPECT_EQ(find_cycle({stage("a", "mean_smooth", {"b"}), stage("b", "mean_smooth", {"a"})}), (Ids{"a", "b", "a"}));
}

// The ids follow the frames (b reads a: a -> b) and start at the first stage of the file.
TEST(FindCycle, FollowsTheDataFromTheFirstStage) {
  const std::vector<StageDefinition> stages = {stage("src", "decode"), stage("x", "mean_smooth", {"src", "z"}),
                                               stage("y", "mean_smooth", {"x"}), stage("z", "mean_smooth", {"y"})};
  EXPECT_EQ(find_cycle(stages), (Ids{"x", "y", "z", "x"}));
  const std::vector<StageDefinition> entered_late = {stage("z", "mean_smooth", {"y"}), stage("head", "mean_smooth", {"y"}),
                                                     stage("x", "mean_smooth", {"z"}), stage("y", "mean_smooth", {"x"})};
  EXPECT_EQ(find_cycle(entered_late), (Ids{"z", "x", "y", "z"}));
}

TEST(FindCycle, IgnoresUnknownIds) {
  EXPECT_TRUE(find_cycle({stage("a", "mean_smooth", {"ghost"}), stage("b", "mean_smooth", {"a"})}).empty());
}

TEST(FindCycle, CycleBehindAnAcyclicPart) {
  const auto cycle = find_cycle({stage("a", "decode"), stage("b", "mean_smooth", {"a"}), stage("c", "mean_smooth", {"d"}),
                                 stage("d", "mean_smooth", {"c"})});
  EXPECT_EQ(cycle, (Ids{"c", "d", "c"}));
}

}  // namespace
}  // namespace fp
