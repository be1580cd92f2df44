// What a client asks of the stream manager: a stream's spec, where streams may read and
// write, a batch of changes and a refusal. The vocabulary every front end (serve's API,
// the stream list, the state file) shares with the manager (manager.hpp).
#pragma once

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fp {

// Who asked for a stream: a client of the API, or the stream list file (`serve
// --stream-list`, a Kubernetes ConfigMap), or `framepipe run`'s command line (its streams,
// which the manager runs for it). A stream belongs to the one that made it: the other may
// neither replace nor remove it (409), so that the list and the API never fight over a name.
// The source also says what a live input finds at the cap: the API's is refused (503), the
// list's waits for a place, the command line's takes one beyond the cap (run has left room
// for its live inputs: resolve_stream_jobs).
enum class StreamSource { Api, List, Command };
const char* stream_source_name(StreamSource source);  // "api", "list", "run"

// What a client asked for: everything the state file keeps about a stream.
struct StreamSpec {
  std::string name;      // [A-Za-z0-9._-]{1,64}
  std::string pipeline;  // a template's name (its file's stem)
  std::string uri;       // the input, credentials included: never shown (mask_credentials)
  // `--set`-style overrides: "STAGE.PARAM" -> the value as YAML text ("8", "[1, 2]", "max_energy").
  std::map<std::string, std::string> sets;
  // Parameters of the template's decode stage (decoder, reconnect, ...): PARAM -> YAML text.
  std::map<std::string, std::string> decode;
  StreamSource source = StreamSource::Api;

  bool operator==(const StreamSpec&) const = default;
};

// A file the service itself reads or writes (its state file, stream list, token file; the
// templates are known to StreamTemplates): no output may be it or lie in its folder.
struct ServiceFile {
  std::filesystem::path path;
  std::string what;  // as a refusal names it: "state file (--state)"
};

// Where a service may read and write. Empty allow_roots: only network inputs and testsrc://.
struct StreamRoots {
  std::vector<std::filesystem::path> allow_roots;  // file://, plain paths and v4l2:// inputs only under these
  std::filesystem::path output_root;               // every output path is relative to this, and stays in it
  std::vector<ServiceFile> own_files;              // never written by a stream, nor beside
};

// One change of a batch (StreamManager::apply): a put of `spec`, or the removal of stream
// spec.name by spec.source.
struct StreamChange {
  StreamSpec spec;
  bool remove = false;
  bool replan = false;  // a put of the spec running, made again (its template changed)
};

struct StreamChangeResult {
  // Unknown: a removal of no such stream. Refused: status and error say why (StreamRejected's).
  enum class Outcome { Created, Replaced, Unchanged, Removed, Unknown, Refused };
  Outcome outcome = Outcome::Refused;
  int status = 0;
  std::string error;
  // Refused for want of room: the resource that has none, as the API names it ("streams",
  // "cpu_encode", ...); empty for any other refusal.
  std::string capacity_resource;
};

// A request the manager refuses: `status` is the HTTP status it deserves (400 bad value,
// 403 a path outside the roots, 404 unknown stream or template, 409 busy, 422 invalid
// pipeline or an input beyond the limits, 503 capacity or draining) and what() the message ("capacity", or the same
// lines `framepipe validate` prints).
class StreamRejected : public std::runtime_error {
 public:
  StreamRejected(int status, const std::string& message) : std::runtime_error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// A name as a refusal may quote it: printable ('?' for the rest), cut after a stream name's
// longest, so that a client's long or binary name never reaches a message whole.
std::string printable_name(std::string_view name);

// A name that is not a valid stream name (definition/stream_names.hpp) refused as every
// front end of the manager refuses it: StreamRejected 400 stating the rule.
void check_stream_name(std::string_view name);

}  // namespace fp
