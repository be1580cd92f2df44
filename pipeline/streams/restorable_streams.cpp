#include "pipeline/streams/restorable_streams.hpp"

#include <fmt/format.h>

#include <map>

namespace fp {

RestorableStreams restorable_streams(std::vector<SavedStream> saved, const std::filesystem::path& file,
                                     bool has_stream_list) {
  RestorableStreams out;
  std::map<std::string, std::size_t> first_of;  // name -> its first entry's index
  for (std::size_t index = 0; index < saved.size(); ++index) {
    SavedStream& entry = saved[index];
    const std::string& name = entry.spec.name;
    // Two runs of one name would fight over its outputs (and the manager holds one per name).
    if (const auto [first, added] = first_of.emplace(name, index); !added) {
      out.refused.push_back(fmt::format(
          "state file {}: streams[{}]: a second stream named '{}': refused (streams[{}], the first of that name, is "
          "restored); the file is written again without it",
          file.string(), index, name, first->second));
      continue;
    }
    if (entry.spec.source == StreamSource::List && !has_stream_list) {
      out.dropped.push_back(fmt::format(
          "stream {}: dropped: restored from the state file as a stream list's, but this serve has no --stream-list "
          "(nothing could remove or replace it); the state file {} is written again without it",
          name, file.string()));
      continue;
    }
    out.streams.push_back(std::move(entry));
  }
  return out;
}

}  // namespace fp
