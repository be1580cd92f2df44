// The pipeline one stream of `framepipe serve` runs: its template loaded with the stream's
// input and overrides exactly as `framepipe validate TEMPLATE -i URI --set ...` would load
// it (so that a refusal reads the same), then confined to the service's roots: outputs
// inside the output root, local inputs inside an allowed root. What the API accepts is
// decided here, before anything is opened.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/config_loader.hpp"
#include "pipeline/file_clashes.hpp"
#include "pipeline/pipeline_definition.hpp"
#include "pipeline/stream_manager.hpp"

namespace fp {

// [A-Za-z0-9._-]{1,64}, and not "." or ".." (a name goes into output paths via {stream}).
bool is_valid_stream_name(std::string_view name);
// The same, as the refusal every front end gives: StreamRejected 400 naming the rule.
void check_stream_name(std::string_view name);

// What one stream runs, ready for run_pipeline.
struct StreamPlan {
  PipelineDefinition definition;  // one stream, {stream} replaced, outputs absolute under the output root
  std::vector<FileUse> files;     // what it reads and writes (for clashes with the other streams)
  std::vector<std::string> outputs;  // its files and URLs as shown (masked)
  bool endless = false;           // every input is a live feed, a camera or an endless testsrc
};

class StreamTemplates {
 public:
  // Loads every template as it is (its own input), so that a service with a broken
  // template refuses to start: throws std::runtime_error naming the template and its file,
  // with validate's lines.
  StreamTemplates(std::map<std::string, std::filesystem::path> files, StreamRoots roots,
                  AutoBackend auto_backend = {});

  std::vector<std::string> names() const;
  // The definitions as loaded (for the derived stream cap).
  std::vector<PipelineDefinition> loaded() const;

  // Throws StreamRejected: 400 a bad name or no input, 422 an unknown template or a
  // pipeline `framepipe validate` refuses (its lines, word for word), 403 an input or output
  // outside the roots.
  StreamPlan plan(const StreamSpec& spec) const;

 private:
  struct Template {
    std::filesystem::path file;
    std::string decode_stage;  // the stage the stream's input and `decode` parameters go to
    PipelineDefinition definition;
  };
  std::map<std::string, Template> templates_;
  StreamRoots roots_;  // canonical
  AutoBackend auto_backend_;
};

// 409 when `plan` writes a file that one of `others` reads or writes, or reads one that
// another writes (check_file_clashes' message, naming both).
void check_stream_clashes(const std::string& name, const StreamPlan& plan,
                          const std::vector<std::pair<std::string, const StreamPlan*>>& others);

}  // namespace fp
