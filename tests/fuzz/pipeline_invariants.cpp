#include "tests/fuzz/pipeline_invariants.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "pipeline/definition/graph.hpp"
#include "stages/registry.hpp"

namespace fp::fuzz {

namespace {

struct BrokenPromise {
  const char* promise;
};

void require(bool holds, const char* promise) {
  if (!holds) throw BrokenPromise{promise};
}

bool in_range(const ParamRange& range, double value) {
  if (!std::isfinite(value)) return false;
  if (range.min && (range.min_exclusive ? value <= *range.min : value < *range.min)) return false;
  if (range.max && value > *range.max) return false;
  return true;
}

// "Every parameter present and typed", as pipeline_definition.hpp promises.
void check_param(const ParamSpec& spec, const StageParams& params) {
  require(params.has(spec.name), "every parameter of the table has a value");
  const ParamValue& value = params.get(spec.name);
  const auto is_keyword = [&](const std::string& text) {
    return std::find(spec.keywords.begin(), spec.keywords.end(), text) != spec.keywords.end();
  };
  switch (spec.type) {
    case ParamType::Int:
      if (const auto* text = std::get_if<std::string>(&value)) {
        require(is_keyword(*text), "an int parameter holds a number or one of its keywords");
      } else {
        const auto* number = std::get_if<std::int64_t>(&value);
        require(number != nullptr, "an int parameter holds an integer");
        require(in_range(spec.range, static_cast<double>(*number)), "an int parameter is within its range");
        require(!spec.odd || *number % 2 != 0, "an odd parameter is odd");
      }
      break;
    case ParamType::Float: {
      const auto* number = std::get_if<double>(&value);
      require(number != nullptr, "a float parameter holds a double");
      require(in_range(spec.range, *number), "a float parameter is finite and within its range");
      break;
    }
    case ParamType::String:
    case ParamType::Path:
      require(std::holds_alternative<std::string>(value), "a string parameter holds text");
      break;
    case ParamType::Enum: {
      const auto* text = std::get_if<std::string>(&value);
      require(text != nullptr && is_keyword(*text), "an enum parameter holds one of its values");
      break;
    }
    case ParamType::FloatList: {
      const auto* list = std::get_if<std::vector<double>>(&value);
      require(list != nullptr, "a list parameter holds a list");
      for (double element : *list) require(in_range(spec.range, element), "every list element is within range");
      break;
    }
  }
  (void)format_value(value);
}

void check_definition(const PipelineDefinition& definition) {
  require(!definition.stages.empty(), "a valid pipeline has stages");
  for (const auto& stage : definition.stages) {
    const StageSpec* spec = find_stage(stage.type);
    require(spec != nullptr, "every stage has a registered type");
    const auto inputs = static_cast<int>(stage.inputs.size());
    require(inputs >= spec->min_inputs && inputs <= spec->max_inputs, "every stage has an allowed number of inputs");
    for (const auto& input : stage.inputs) require(definition.find(input) != nullptr, "every input names a stage");
    for (const auto& param : spec->params) check_param(param, stage.params);
    require(stage.params.values().size() == spec->params.size(), "no parameter outside the table");
    if (spec->check) require(spec->check(stage.params).empty(), "the stage's own check passes");
  }
  // The executor builds the graph from a validated definition without further checks.
  const PipelineGraph graph(definition);
  const auto& order = graph.topological_order();
  require(order.size() == definition.stages.size(), "the topological order holds every stage");
  std::vector<int> position(order.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i) position.at(static_cast<std::size_t>(order[i])) = static_cast<int>(i);
  for (std::size_t node = 0; node < graph.nodes().size(); ++node)
    for (int input : graph.nodes()[node].inputs)
      require(position.at(static_cast<std::size_t>(input)) < position[node], "every stage runs after its inputs");
}

void check_config_error(const ConfigError& error) {
  require(!error.issues().empty(), "a ConfigError names at least one issue");
  std::string all;
  for (const auto& issue : error.issues()) {
    require(!issue.message.empty(), "every issue has a message");
    const std::string line = issue.format();
    const bool printable = std::all_of(line.begin(), line.end(), [](char c) {
      const auto byte = static_cast<unsigned char>(c);
      return byte >= 0x20 && byte != 0x7f;
    });
    require(printable, "every issue prints as one line without control characters");
    all += (all.empty() ? "" : "\n") + line;
  }
  require(all == error.what(), "what() lists every issue, one a line");
}

template <class Check>
std::string first_broken(Check&& check) {
  try {
    check();
  } catch (const BrokenPromise& broken) {
    return broken.promise;
  }
  return {};
}

}  // namespace

std::string broken_promise(const PipelineDefinition& definition) {
  return first_broken([&] { check_definition(definition); });
}

std::string broken_promise(const ConfigError& error) {
  return first_broken([&] { check_config_error(error); });
}

}  // namespace fp::fuzz
