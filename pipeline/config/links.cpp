#include "pipeline/config/links.hpp"

#include <cctype>
#include <map>

#include "pipeline/config/suggest.hpp"
#include "pipeline/definition/graph.hpp"

namespace fp {

namespace {

using IdIndex = std::map<std::string, std::size_t>;  // id -> the first stage with it

IdIndex check_ids(const RawPipeline& raw, std::vector<ConfigIssue>& issues) {
  IdIndex first;
  for (std::size_t i = 0; i < raw.stages.size(); ++i) {
    const RawStage& stage = raw.stages[i];
    if (stage.id.empty()) continue;  // no id and no type: the missing type is reported
    if (stage.id_given && !is_valid_id(stage.id)) {
      issues.push_back(stage.id_origin.issue(
          "must start with a letter or '_' and contain only letters, digits, '_' and '-' (got '" + stage.id + "')"));
    }
    const bool implicit_source = raw.has_top_level_input && i == 0;
    if (raw.has_top_level_input && !implicit_source && stage.id == "input") {
      issues.push_back(stage.id_origin.issue("id 'input' is reserved for the decode stage of the top-level `input`"));
      continue;
    }
    const auto [it, inserted] = first.emplace(stage.id, i);
    if (!inserted) {
      const RawStage& earlier = raw.stages[it->second];
      std::string message =
          "duplicate id '" + stage.id + "' (first defined at line " + std::to_string(earlier.id_origin.line) + ")";
      if (!stage.id_given) message += "; stages of the same type need an `id` each";
      issues.push_back(stage.id_origin.issue(message));
    }
  }
  return first;
}

std::string count_message(const StageSpec& spec, std::size_t got) {
  const std::string n = " (got " + std::to_string(got) + ")";
  if (spec.max_inputs == 0) return spec.type + " takes no inputs" + n;
  const std::string plural = spec.max_inputs == 1 ? " input" : " inputs";
  if (spec.min_inputs == spec.max_inputs)
    return spec.type + " needs exactly " + std::to_string(spec.min_inputs) + plural + n;
  return spec.type + " needs " + std::to_string(spec.min_inputs) + " to " + std::to_string(spec.max_inputs) + plural + n;
}

bool count_fits(const StageSpec& spec, std::size_t n) {
  return static_cast<int>(n) >= spec.min_inputs && static_cast<int>(n) <= spec.max_inputs;
}

std::vector<std::string> explicit_inputs(const RawPipeline& raw, const RawStage& stage, const IdIndex& ids,
                                         std::vector<ConfigIssue>& issues) {
  std::vector<std::string> names;
  for (const auto& [id, _] : ids) names.push_back(id);
  std::vector<std::string> resolved;
  for (const auto& input : stage.inputs) {
    resolved.push_back(input.id);
    const auto it = ids.find(input.id);
    if (it == ids.end()) {
      issues.push_back(input.origin.issue("unknown input '" + input.id + "'" + suggestion_suffix(input.id, names)));
      continue;
    }
    const RawStage& source = raw.stages[it->second];
    if (source.spec && source.spec->role == StageRole::Sink)
      issues.push_back(input.origin.issue("input '" + input.id + "' is a sink (" + source.type +
                                          ") and has no output"));
  }
  if (stage.spec && !stage.inputs_reported && !count_fits(*stage.spec, stage.inputs.size()))
    issues.push_back(stage.inputs_origin.issue(count_message(*stage.spec, stage.inputs.size())));
  return resolved;
}

// No `input`/`inputs`: the nearest earlier stage that produces frames (a stage of
// unknown type counts, as its type is already reported).
std::vector<std::string> implicit_inputs(const RawPipeline& raw, std::size_t index, std::vector<ConfigIssue>& issues) {
  const RawStage& stage = raw.stages[index];
  if (!stage.spec || stage.spec->max_inputs == 0) return {};
  for (std::size_t j = index; j-- > 0;) {
    const RawStage& earlier = raw.stages[j];
    if (earlier.id.empty() || (earlier.spec && earlier.spec->role == StageRole::Sink)) continue;
    if (!count_fits(*stage.spec, 1))
      issues.push_back(stage.origin.issue(count_message(*stage.spec, 1) + "; list them with `inputs: [ID, ...]`"));
    return {earlier.id};
  }
  issues.push_back(stage.origin.issue("has no input: no earlier stage produces frames; set `input: ID`"));
  return {};
}

void check_cycle(const RawPipeline& raw, const std::vector<std::vector<std::string>>& inputs,
                 std::vector<ConfigIssue>& issues) {
  std::vector<StageDefinition> stages(raw.stages.size());
  for (std::size_t i = 0; i < stages.size(); ++i) {
    stages[i].id = raw.stages[i].id;
    stages[i].inputs = inputs[i];
  }
  const auto cycle = find_cycle(stages);
  if (cycle.empty()) return;
  std::string path;
  for (const auto& id : cycle) path += (path.empty() ? "" : " -> ") + id;
  for (const auto& stage : raw.stages) {
    if (stage.id == cycle.front()) {
      issues.push_back(stage.origin.issue("cycle: " + path));
      return;
    }
  }
}

void check_has_decode(const RawPipeline& raw, std::vector<ConfigIssue>& issues) {
  if (!raw.stages_usable) return;  // the broken `stages` is the problem to report
  for (const auto& stage : raw.stages)
    if (stage.type == "decode") return;
  issues.push_back(raw.stages_origin.issue(
      "the pipeline has no decode stage; add a top-level `input: URI` or a stage of type decode"));
}

}  // namespace

bool is_valid_id(const std::string& id) {
  if (id.empty()) return false;
  const auto head = static_cast<unsigned char>(id.front());
  if (!std::isalpha(head) && head != '_') return false;
  for (const char ch : id) {
    const auto c = static_cast<unsigned char>(ch);
    if (!std::isalnum(c) && c != '_' && c != '-') return false;
  }
  return true;
}

std::vector<std::vector<std::string>> link_stages(const RawPipeline& raw, std::vector<ConfigIssue>& issues) {
  const IdIndex ids = check_ids(raw, issues);
  std::vector<std::vector<std::string>> inputs;
  for (std::size_t i = 0; i < raw.stages.size(); ++i) {
    const RawStage& stage = raw.stages[i];
    inputs.push_back(stage.explicit_inputs ? explicit_inputs(raw, stage, ids, issues)
                                           : implicit_inputs(raw, i, issues));
  }
  check_cycle(raw, inputs, issues);
  check_has_decode(raw, issues);
  return inputs;
}

}  // namespace fp
