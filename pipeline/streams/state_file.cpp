#include "pipeline/streams/state_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/small_file.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/streams/private_file.hpp"

namespace fp {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr int kVersion = 1;
// Far beyond what serve writes (a few hundred bytes a stream): a bound on what is read, not
// a limit on the streams.
constexpr std::size_t kMaxStateBytes = 256u << 20;

// A state file that cannot be read is a configuration error (exit 2), as a stream list or a
// token file that cannot be: the service refuses to start rather than run without its streams.
[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw UsageError(fmt::format("state file {}: {}", file.string(), what));
}

// "set" and "decode" values are YAML text; a number or list written by hand is taken as its JSON text.
std::map<std::string, std::string> text_map(const json& object, const fs::path& file, const std::string& key) {
  std::map<std::string, std::string> out;
  if (object.is_null()) return out;
  if (!object.is_object()) fail(file, fmt::format("{}: must be an object", key));
  for (const auto& [k, v] : object.items()) out[k] = v.is_string() ? v.get<std::string>() : v.dump();
  return out;
}

std::string text_of(const json& stream, const char* key, const fs::path& file, std::size_t index) {
  const auto found = stream.find(key);
  if (found == stream.end() || !found->is_string())
    fail(file, fmt::format("streams[{}].{}: missing or not a string", index, key));
  return found->get<std::string>();
}

// Absent: false. (json::value would throw the library's own words, without the file's name.)
bool flag_of(const json& stream, const char* key, const fs::path& file, std::size_t index) {
  const auto found = stream.find(key);
  if (found == stream.end()) return false;
  if (!found->is_boolean()) fail(file, fmt::format("streams[{}].{}: must be true or false", index, key));
  return found->get<bool>();
}

// Every value's type is checked here, named by its key: a file edited by hand gets told
// which key is wrong, never the JSON library's words alone.
std::vector<SavedStream> streams_of(const json& document, const fs::path& file) {
  if (!document.is_object() || !document.contains("streams") || !document["streams"].is_array())
    fail(file, "not a framepipe state file: expected {\"version\": 1, \"streams\": [...]}");
  const auto version = document.find("version");
  if (version == document.end() || !version->is_number_integer()) fail(file, "version: must be a number");
  if (version->get<std::int64_t>() != kVersion)
    fail(file, fmt::format("version {} is not one this framepipe reads (it reads {})", version->dump(), kVersion));
  std::vector<SavedStream> streams;
  std::size_t index = 0;
  for (const auto& entry : document["streams"]) {
    if (!entry.is_object()) fail(file, fmt::format("streams[{}]: must be an object", index));
    SavedStream saved;
    saved.spec.name = text_of(entry, "name", file, index);
    saved.spec.pipeline = text_of(entry, "pipeline", file, index);
    saved.spec.uri = text_of(entry, "uri", file, index);
    saved.spec.sets = text_map(entry.value("set", json()), file, fmt::format("streams[{}].set", index));
    saved.spec.decode = text_map(entry.value("decode", json()), file, fmt::format("streams[{}].decode", index));
    saved.finished = flag_of(entry, "finished", file, index);
    // Written since the stream list (absent in older files: those came from the API).
    const json source = entry.value("source", json("api"));
    if (source == "list") saved.spec.source = StreamSource::List;
    else if (source != "api") fail(file, fmt::format("streams[{}].source: must be \"api\" or \"list\"", index));
    streams.push_back(std::move(saved));
    ++index;
  }
  return streams;
}

}  // namespace

std::vector<SavedStream> read_stream_state(const fs::path& file) {
  // A link is refused: the state is replaced by rename, which replaces a link and not its
  // target, so a state path that is a link would be read from one file and written to
  // another. Never blocking: a FIFO in its place would otherwise hold the start until a
  // writer came.
  std::string text;
  try {
    text = read_small_file(file, kMaxStateBytes, SmallFileLinks::Refuse);
  } catch (const SmallFileError& e) {
    if (e.code() == ENOENT) return {};
    if (e.code() == ELOOP)
      fail(file, "is a symbolic link: give the path of the file itself (the state is replaced by renaming a new "
                 "file over it, which would replace the link, not the file it points to)");
    fail(file, e.code() != 0 ? fmt::format("cannot read: {}", e.what()) : std::string(e.what()));
  }
  json document;
  try {
    document = json::parse(text);
  } catch (const json::parse_error& e) {
    // Where and why, but not the parser's "; last read: '...'": a quote of the file's bytes,
    // which a cut-short file ends inside a URI's password, before the '@' that masking
    // looks for ("rtsp://user:sec").
    std::string what = e.what();
    if (const auto quote = what.find("; last read:"); quote != std::string::npos) what.erase(quote);
    fail(file, fmt::format("not valid JSON: {}", what));
  }
  try {
    return streams_of(document, file);
  } catch (const json::exception& e) {
    // A shape the checks of streams_of did not foresee: still named by its file.
    fail(file, e.what());
  }
}

void write_stream_state(const fs::path& file, const std::vector<SavedStream>& streams) {
  json list = json::array();
  for (const auto& saved : streams)
    list.push_back({{"name", saved.spec.name},
                    {"pipeline", saved.spec.pipeline},
                    {"uri", saved.spec.uri},
                    {"set", saved.spec.sets},
                    {"decode", saved.spec.decode},
                    {"source", stream_source_name(saved.spec.source)},
                    {"finished", saved.finished}});
  const std::string text = json{{"version", kVersion}, {"streams", list}}.dump(2) + "\n";

  try {
    replace_private_file(file, text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("state file {}: {}", file.string(), e.what()));  // a runtime failure, not fail()'s
  }
}

}  // namespace fp
