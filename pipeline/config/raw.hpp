// A pipeline as read from YAML, before its values are checked: every value keeps its YAML
// node and where it came from (a place in the file, or a command-line option), so that a
// problem found later is reported where the user wrote the value.
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/raw.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <yaml-cpp/yaml.h>

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pipeline/definition/config_error.hpp"
#include "stages/stage.hpp"

namespace fp {

// Where a value was written; an issue about it is reported there.
struct Origin {
  std::string file;
  int line = 0;  // 1-based; 0 for the command line
  int column = 0;
  std::string key;  // e.g. "stages[2].h", "input", "--set denoise.h"

  ConfigIssue issue(std::string message) const { return {file, line, column, key, std::move(message)}; }
  Origin with_key(std::string new_key) const {
    Origin copy = *this;
    copy.key = std::move(new_key);
    return copy;
  }
};

struct RawValue {
  YAML::Node node;
  Origin origin;
};

struct RawInput {
  std::string id;
  Origin origin;
};

struct RawStage {
  Origin origin;  // the stage's map (key "stages[i]"), or the top-level `input` for its decode stage
  std::string id;  // given or defaulted to the type; empty when neither is usable
  Origin id_origin;
  bool id_given = false;
  std::string type;
  const StageSpec* spec = nullptr;  // null when the type is missing or unknown (already reported)
  bool explicit_inputs = false;     // `input`/`inputs` was written (even if wrongly)
  bool inputs_reported = false;     // a problem with them was reported: skip the count check
  std::vector<RawInput> inputs;
  Origin inputs_origin;
  std::map<std::string, RawValue> params;
};

// One stream of a pipeline run on several inputs (`inputs:` or -i given more than once): the
// decode stage it gets in place of the pipeline's first one.
struct RawStream {
  std::string name;  // given (`name:`), or the stream's index
  Origin name_origin;
  RawStage input;
};

struct RawPipeline {
  std::string file;
  std::optional<RawValue> device;
  std::optional<RawValue> realtime;
  std::optional<RawValue> drop;
  std::optional<RawValue> jobs;
  bool has_top_level_input = false;  // then stages[0] is its decode stage, id `input`
  bool stages_usable = false;        // false: `stages` is missing or not a list (already reported)
  Origin stages_origin;
  std::vector<RawStage> stages;  // in file order, the top-level input's decode stage first
  // Empty: the pipeline runs once, as written. Otherwise once per stream, each with its own
  // decode stage in place of stages[stream_stage] (the first stream's stage is that one).
  std::vector<RawStream> streams;
  std::size_t stream_stage = 0;
  Origin streams_origin;  // `inputs`, or -i
};

}  // namespace fp
