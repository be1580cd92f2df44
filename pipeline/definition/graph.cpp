#include "pipeline/definition/graph.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <queue>
#include <stdexcept>

#include "stages/registry.hpp"

namespace fp {

namespace {

// Depth-first search along input edges; a stage reached again while still open closes a
// cycle. Pipelines are a handful of stages, so recursion depth is no concern.
class CycleFinder {
 public:
  explicit CycleFinder(const std::vector<StageDefinition>& stages) : stages_(stages), state_(stages.size(), kNew) {
    for (std::size_t i = 0; i < stages.size(); ++i) first_.emplace(stages[i].id, i);
  }

  std::vector<std::size_t> find() {
    for (std::size_t i = 0; i < stages_.size(); ++i)
      if (state_[i] == kNew && visit(i)) return cycle_;
    return {};
  }

 private:
  enum State { kNew, kOpen, kDone };

  bool visit(std::size_t i) {
    state_[i] = kOpen;
    path_.push_back(i);
    for (const auto& id : stages_[i].inputs) {
      const auto it = first_.find(id);
      if (it == first_.end()) continue;  // unknown ids are reported elsewhere
      const std::size_t j = it->second;
      if (state_[j] == kOpen) {
        cycle_.assign(std::find(path_.begin(), path_.end(), j), path_.end());
        return true;
      }
      if (state_[j] == kNew && visit(j)) return true;
    }
    state_[i] = kDone;
    path_.pop_back();
    return false;
  }

  const std::vector<StageDefinition>& stages_;
  std::map<std::string, std::size_t> first_;  // id -> first stage with it
  std::vector<State> state_;
  std::vector<std::size_t> path_;
  std::vector<std::size_t> cycle_;  // along input edges: each reads the next, the last reads the first
};

}  // namespace

std::vector<std::string> find_cycle(const std::vector<StageDefinition>& stages) {
  std::vector<std::size_t> cycle = CycleFinder(stages).find();
  if (cycle.empty()) return {};
  // Reported in the direction frames flow (a -> b: b reads a), from the stage that comes
  // first in the file, so the message reads like the pipeline.
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
  std::vector<std::string> ids;
  for (const std::size_t i : cycle) ids.push_back(stages[i].id);
  ids.push_back(ids.front());
  return ids;
}

PipelineGraph::PipelineGraph(const PipelineDefinition& definition) {
  const auto& stages = definition.stages;
  nodes_.resize(stages.size());
  for (std::size_t i = 0; i < stages.size(); ++i) {
    nodes_[i].stage = &stages[i];
    nodes_[i].spec = find_stage(stages[i].type);
    if (!nodes_[i].spec)
      throw std::invalid_argument("stage '" + stages[i].id + "' has unknown type '" + stages[i].type + "'");
  }

  std::vector<int> pending(nodes_.size(), 0);  // inputs not yet placed in the order
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (const auto& id : stages[i].inputs) {
      const int j = index_of(id);
      if (j < 0) throw std::invalid_argument("stage '" + stages[i].id + "' reads unknown stage '" + id + "'");
      nodes_[i].inputs.push_back(j);
      // A stage that reads the same input twice is still one consumer of it.
      auto& consumers = nodes_[j].consumers;
      if (std::find(consumers.begin(), consumers.end(), static_cast<int>(i)) == consumers.end()) {
        consumers.push_back(static_cast<int>(i));
        ++pending[i];
      }
    }
  }

  // Kahn's algorithm taking the lowest ready index first: the file order whenever it
  // already runs inputs first, and the order closest to it otherwise.
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (pending[i] == 0) ready.push(static_cast<int>(i));
  while (!ready.empty()) {
    const int next = ready.top();
    ready.pop();
    order_.push_back(next);
    for (const int consumer : nodes_[next].consumers)
      if (--pending[consumer] == 0) ready.push(consumer);
  }
  if (order_.size() != nodes_.size()) {
    std::string path;
    for (const auto& id : find_cycle(stages)) path += (path.empty() ? "" : " -> ") + id;
    throw std::invalid_argument("the pipeline's stages form a cycle: " + path);
  }
}

int PipelineGraph::index_of(const std::string& id) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i)
    if (nodes_[i].stage->id == id) return static_cast<int>(i);
  return -1;
}

}  // namespace fp
