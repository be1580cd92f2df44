#include "pipeline/streams/planner.hpp"

#include <fmt/format.h>

#include "media/stream_uri.hpp"

namespace fp {

void add_plan_files(StreamPlan& plan, const std::string& stream) {
  for (const auto& stage : plan.definition.stages) {
    if (const auto uri = source_uri(stage))
      plan.files.push_back({.written = false, .path = *uri, .what = "input of stream " + stream, .where = {}});
    for (auto& [name, path] : path_params(stage)) {
      if (!names_a_file(path)) continue;
      plan.outputs.push_back(mask_credentials(path));
      plan.files.push_back({.written = true, .path = std::move(path),
                            .what = fmt::format("{} of stream {} (stage '{}')", name, stream, stage.id), .where = {}});
    }
  }
}

}  // namespace fp
