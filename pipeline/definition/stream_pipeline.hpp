// A pipeline run on several inputs is run once per stream: this makes the pipeline one stream
// runs. Pure data work on the validated definition.
#pragma once

#include <cstddef>

#include "pipeline/definition/pipeline_definition.hpp"

namespace fp {

// The pipeline as stream `index` runs it: its decode parameters in place of the stream
// stage's, `{stream}` in every output path replaced by its name, and — with more than one
// stream — every stage id prefixed with "NAME/" (inputs too), so that each message, warning
// and statistic says which stream it is about; no `streams` and no `files` (the others' and
// the loader's clash check: no part of one stream's run). Without streams: the definition as it is.
PipelineDefinition stream_pipeline(const PipelineDefinition& definition, std::size_t index);

}  // namespace fp
