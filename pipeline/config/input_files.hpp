// `inputs: {glob: 'cams/*.mp4'}` and `inputs: {list: cams.txt}`: many inputs named by one
// pattern or one file, expanded when the pipeline is read so that validation sees every
// stream (and a pattern that matches nothing is an error with its line).
#pragma once
#if !defined(FRAMEPIPE_ROOM_CONFIG)  // a header of the room's own (pipeline/CMakeLists.txt: the walls)
#error "pipeline/config/input_files.hpp is private to pipeline/config/: outside it, include the room's public headers (docs/ARCHITECTURE.md)"
#endif

#include <string>
#include <vector>

#include "pipeline/config/raw.hpp"
#include "pipeline/definition/stream_names.hpp"

namespace fp {

struct NamedInput {
  std::string uri;
  std::string name;  // the stream's name ({stream} in output paths)
};

// The files matching `pattern`, sorted. Wildcards (* ? [...]) only in the file name: the
// folder is listed, not searched, so a pattern cannot walk a whole file system. Streams
// are named after the files' stems (cam1.mp4 -> cam1), or by index when two stems clash.
std::vector<NamedInput> expand_input_glob(const std::string& pattern, const Origin& at,
                                          std::vector<ConfigIssue>& issues);

// The inputs listed in a text file, one per line: `URI` or `URI NAME`; blank lines and
// lines starting with '#' are skipped. An unnamed local file (a path, or file://) is named
// after its stem (file_stream_name), as a glob names its files, so that a batch's outputs ({stream}) and its
// shards (`run --shard`) follow the file, not its place in the list; by index when two
// names would clash (two stems alike, or a stem equal to another line's name). Unnamed
// URIs (rtsp://, testsrc://, v4l2://...) are named by their index in the list.
std::vector<NamedInput> read_input_list_file(const std::string& path, const Origin& at,
                                             std::vector<ConfigIssue>& issues);

}  // namespace fp
