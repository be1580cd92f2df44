// The pipeline one stream of `framepipe serve` runs: its template loaded with the stream's
// input and overrides exactly as `framepipe validate TEMPLATE -i URI --set ...` would load
// it (so that a refusal reads the same), then confined to the service's roots: outputs
// inside the output root and never on (or beside) the service's own files, local inputs
// inside an allowed root, inputs within the size and rate limits. What the API accepts is
// decided here, before anything is opened.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/config/loader.hpp"
#include "pipeline/definition/file_clashes.hpp"
#include "pipeline/definition/pipeline_definition.hpp"
#include "pipeline/definition/stream_names.hpp"
#include "pipeline/engine/input_limits.hpp"
#include "pipeline/streams/planner.hpp"
#include "pipeline/stream_spec/spec.hpp"

namespace fp {

// What a reload found: the templates whose text changed and now are in force, and why each
// of the others that changed is not (its last good text stays), one line each.
struct TemplateReload {
  std::vector<std::string> changed;
  std::vector<std::string> refused;
};

// serve's planner: a spec's template, its outputs absolute under the output root.
class StreamTemplates final : public StreamPlanner {
 public:
  // A file of the service's own, by the path it was given (made absolute) and the one it
  // really has (a Kubernetes ConfigMap's files are links into a folder beside them).
  struct OwnFile {
    std::filesystem::path given;
    std::filesystem::path real;
    std::string what;
  };

  // Reads every template and loads it as it is (its own input), so that a service with a
  // broken template refuses to start: throws UsageError (exit 2, as validate's) naming the
  // template and its file, with validate's lines. The text read is what every stream of the
  // template plans with from then on, until reload(): a file edited on disk changes nothing
  // until then (a restart during an edit would read half a file).
  // The template files join roots.own_files: no stream's output may overwrite one.
  StreamTemplates(std::map<std::string, std::filesystem::path> files, StreamRoots roots,
                  AutoBackend auto_backend = {}, InputLimits limits = {});

  std::vector<std::string> names() const override;
  // The definitions as loaded (for the derived stream cap).
  std::vector<PipelineDefinition> loaded() const override;

  // Throws StreamRejected: 400 a bad name or no input, 422 an unknown template, a pipeline
  // `framepipe validate` refuses (its lines, word for word) or an input whose URI asks for a
  // size or rate beyond the limits (naming the limit and its option), 403 an input or output
  // outside the roots or an output on or beside one of the service's own files (naming it).
  StreamPlan plan(const StreamSpec& spec) const override;

  // Reads every template file again (serve's SIGHUP): one whose text changed and loads
  // replaces the one in force; one that cannot be read or does not load leaves the last
  // good one in force. Safe beside plan() on other threads.
  TemplateReload reload();

  // The hash of the text of `name` in force (StreamPlan::template_digest); empty: no such template.
  std::string digest(const std::string& name) const;

 private:
  struct Template {
    std::filesystem::path file;
    std::string text;          // as read at start or by the last reload that took it
    std::string digest;        // of text (StreamPlan::template_digest)
    std::string decode_stage;  // the stage the stream's input and `decode` parameters go to
    PipelineDefinition definition;
    // Its own input's size and rate as its URI says them (0: unsaid): a stream whose URI says
    // neither (a camera, a network stream, a file) is sized by them until it opens.
    int width = 0;
    int height = 0;
    double fps = 0;
  };
  // Read and loaded with its own input; throws what the file's reading or the loader throws.
  Template read_template(const std::filesystem::path& file) const;
  std::shared_ptr<const Template> find(const std::string& name) const;

  mutable std::mutex mutex_;  // guards templates_ (the pointers; each Template is immutable)
  std::map<std::string, std::shared_ptr<const Template>> templates_;
  std::vector<OwnFile> own_files_;
  StreamRoots roots_;  // canonical (own_files: in own_files_)
  AutoBackend auto_backend_;
  InputLimits limits_;
};

// 422 when `plan` writes a file it also reads, or one file twice (check_file_clashes' message).
// Its clashes with the other streams are StreamFileIndex's (409).
void check_stream_clashes(const StreamPlan& plan);

}  // namespace fp
