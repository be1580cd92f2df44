// A pipeline file after parsing and validation: the stages with their ids, inputs and
// parameters (all present and typed), in the order of the file.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/path_confinement.hpp"
#include "pipeline/definition/drop_policy.hpp"
#include "pipeline/definition/file_clashes.hpp"
#include "stages/stage.hpp"

namespace fp {

struct StageDefinition {
  std::string id;
  std::string type;                 // a registered stage type
  std::vector<std::string> inputs;  // ids of the stages it reads (resolved: never empty where needed)
  StageParams params;               // every parameter of the type's table
  int line = 0;                     // where the stage is in the file (1-based)
  int column = 0;
};

// Whether the stage's type is a source (its StageSpec's role; today the decode stage): the
// rooms above ask this, never a type name.
bool is_source(const StageDefinition& stage);
// The input a source stage reads (its `uri`); nullopt for any other stage, or a source
// without one.
std::optional<std::string> source_uri(const StageDefinition& stage);
// A path parameter a stage has set (its type's ParamType::Path: encode's `output`,
// luma_histogram's): the files it writes. The one loop over them for every room above.
struct PathParam {
  std::string name;
  std::string path;
};
std::vector<PathParam> path_params(const StageDefinition& stage);
// Whether a path parameter's value names a file: "" and null write none.
bool names_a_file(const std::string& path);

// One input of a pipeline run on several (`inputs:` or several -i): the graph is run once
// per stream, with this stream's decode parameters and `{stream}` in output paths replaced
// by its name (pipeline/definition/stream_pipeline.hpp).
struct StreamDefinition {
  std::string name;    // `name:` in the list, else the stream's index from 0
  StageParams input;   // the parameters of the decode stage `stream_stage` for this stream
};

struct PipelineDefinition {
  std::string file;  // the YAML file it came from
  std::string device = "auto";  // auto | cpu | cuda | cuda:N
  // Pace files and testsrc at their frame rate; unset: only when an output is a network
  // stream (a receiver plays what it gets in real time).
  std::optional<bool> realtime;
  DropPolicy drop = DropPolicy::Auto;  // what a source's full queue does
  // Several streams: at most this many at once (`jobs:`, overridden by --jobs); 0: as many as
  // this machine's memory holds (pipeline/capacity/jobs.hpp).
  int jobs = 0;
  std::vector<StageDefinition> stages;  // a decode stage first when the file has `input:`
  std::vector<StreamDefinition> streams;  // empty: the pipeline runs once, as written
  std::string stream_stage;               // the decode stage each stream replaces
  // Every file it reads and writes, every stream's: none clash (checked when loaded); a file
  // the caller adds (--stats-json) is checked against them (check_file_clashes).
  std::vector<FileUse> files;
  // Set by `framepipe serve`'s plan (never by a file or a client): its stages open their
  // files beneath these roots (StageContext::confinement).
  std::optional<PathConfinement> confinement;

  const StageDefinition* find(const std::string& id) const {
    for (const auto& s : stages)
      if (s.id == id) return &s;
    return nullptr;
  }
};

// Whether the run paces its inputs at their frame rate (as a camera delivers frames): the
// file's `realtime:`, else only when an output streams to the network (a receiver plays what
// it gets in real time, as `ffmpeg -re` would send it; a burst would overflow its buffers).
// `run --realtime` turns it on whatever this says. One rule for run and serve.
bool runs_in_realtime(const PipelineDefinition& definition);

}  // namespace fp
