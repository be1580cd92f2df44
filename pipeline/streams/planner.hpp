// How the stream manager turns a client's spec into what its run runs. The policy that tells
// `framepipe serve` from `framepipe run` here: serve plans a spec from a template confined to
// its roots (StreamTemplates, template.hpp); run plans stream i of the pipeline it was given
// (DefinitionStreams, definition_streams.hpp).
#pragma once

#include <string>
#include <vector>

#include "pipeline/definition/file_clashes.hpp"
#include "pipeline/definition/pipeline_definition.hpp"
#include "pipeline/stream_spec/spec.hpp"

namespace fp {

// What one stream runs, ready for run_pipeline.
struct StreamPlan {
  PipelineDefinition definition;     // one stream, {stream} replaced
  std::vector<FileUse> files;        // what it reads and writes (for clashes with the other streams)
  std::vector<std::string> outputs;  // its files and URLs as shown (masked)
  bool endless = false;              // it never ends by itself (a live feed, a camera, an endless testsrc)
  // The input's frame size as its URI says it (testsrc://WxH, v4l2://...?size=WxH), else as
  // its template's own input's says it (serve); 0 when neither says (opening it tells).
  int width = 0;
  int height = 0;
  double fps = 0;  // the rate its URI says (testsrc @FPS, v4l2 fps=); 0: not said
  // serve: which text of its template it was planned from (a hash), so that what its
  // template's streams were seen to cost is not taken for an edited template's.
  std::string template_digest;
};

// Fills plan.files and plan.outputs from plan.definition as it will run (paths confined,
// {stream} replaced): each source's input, and each path parameter that names a file.
// Both planners' one loop over a plan's files.
void add_plan_files(StreamPlan& plan, const std::string& stream);

class StreamPlanner {
 public:
  virtual ~StreamPlanner() = default;
  // Throws StreamRejected saying why the spec cannot run (the status a front end answers).
  virtual StreamPlan plan(const StreamSpec& spec) const = 0;
  // The pipelines a spec may name (serve's templates; run's one file).
  virtual std::vector<std::string> names() const = 0;
  // The pipelines as loaded: the manager derives its cap from the largest (jobs.hpp).
  virtual std::vector<PipelineDefinition> loaded() const = 0;
};

}  // namespace fp
