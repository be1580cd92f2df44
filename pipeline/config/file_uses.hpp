// The files a validated pipeline reads (decode stages' uri, every stream's) and writes
// (every path parameter: encode outputs, luma_histogram's text file), stream by stream with
// {stream} replaced, each with where it was configured: what pipeline/definition/file_clashes.hpp checks.
#pragma once

#include <vector>

#include "pipeline/config/raw.hpp"
#include "pipeline/definition/file_clashes.hpp"
#include "pipeline/definition/pipeline_definition.hpp"

namespace fp {

// `definition` is the checked form of `raw` (its stages in the same order, no issues).
std::vector<FileUse> pipeline_file_uses(const RawPipeline& raw, const PipelineDefinition& definition);

}  // namespace fp
