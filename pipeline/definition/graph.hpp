// The pipeline as a directed acyclic graph of stages, in an order that runs every stage
// after its inputs.
#pragma once

#include <string>
#include <vector>

#include "pipeline/definition/pipeline_definition.hpp"

namespace fp {

struct GraphNode {
  const StageDefinition* stage = nullptr;
  const StageSpec* spec = nullptr;
  std::vector<int> inputs;     // node indices, in the order of the stage's inputs
  std::vector<int> consumers;  // node indices of the stages that read this one
};

class PipelineGraph {
 public:
  // Builds the graph; the definition must already be validated (load_pipeline does it).
  explicit PipelineGraph(const PipelineDefinition& definition);

  const std::vector<GraphNode>& nodes() const { return nodes_; }
  const std::vector<int>& topological_order() const { return order_; }  // inputs before consumers
  int index_of(const std::string& id) const;  // -1 when absent

 private:
  std::vector<GraphNode> nodes_;
  std::vector<int> order_;
};

// Finds a cycle among the stages' inputs; returns the ids along it (first repeated at the
// end, e.g. {a, b, a}), or an empty vector when there is none. Unknown input ids are ignored.
std::vector<std::string> find_cycle(const std::vector<StageDefinition>& stages);

}  // namespace fp
