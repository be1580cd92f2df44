#include "pipeline/stream_state_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace fp {

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;

constexpr int kVersion = 1;

[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw std::runtime_error(fmt::format("state file {}: {}", file.string(), what));
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

void write_all(int fd, const std::string& text, const fs::path& file) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(file, fmt::format("cannot write: {}", std::strerror(errno)));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::vector<SavedStream> read_stream_state(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) return {};
    fail(file, fmt::format("cannot read: {}", std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  json document;
  try {
    document = json::parse(text.str());
  } catch (const json::parse_error& e) {
    fail(file, fmt::format("not valid JSON: {}", e.what()));
  }
  if (!document.is_object() || !document.contains("streams") || !document["streams"].is_array())
    fail(file, "not a framepipe state file: expected {\"version\": 1, \"streams\": [...]}");
  if (document.value("version", 0) != kVersion)
    fail(file, fmt::format("version {} is not one this framepipe reads (it reads {})", document.value("version", 0), kVersion));
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
    saved.finished = entry.value("finished", false);
    // Written since the stream list (absent in older files: those came from the API).
    const json source = entry.value("source", json("api"));
    if (source == "list") saved.spec.source = StreamSource::List;
    else if (source != "api") fail(file, fmt::format("streams[{}].source: must be \"api\" or \"list\"", index));
    streams.push_back(std::move(saved));
    ++index;
  }
  return streams;
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

  const fs::path temporary = fs::path(file.string() + ".tmp");
  // 0600 from the start (not chmod after): no moment where another user may read it.
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail(file, fmt::format("cannot create {}: {}", temporary.string(), std::strerror(errno)));
  try {
    // A temporary file left by an older process under another umask: made private again.
    if (::fchmod(fd, 0600) != 0) fail(file, fmt::format("cannot chmod {}: {}", temporary.string(), std::strerror(errno)));
    write_all(fd, text, file);
    if (::fsync(fd) != 0) fail(file, fmt::format("cannot fsync: {}", std::strerror(errno)));
  } catch (...) {
    ::close(fd);
    ::unlink(temporary.c_str());
    throw;
  }
  if (::close(fd) != 0) fail(file, fmt::format("cannot write: {}", std::strerror(errno)));
  if (::rename(temporary.c_str(), file.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    fail(file, fmt::format("cannot rename {} over it: {}", temporary.string(), std::strerror(error)));
  }
  // The rename itself is durable once the folder is.
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  if (const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    ::fsync(dir);
    ::close(dir);
  }
}

}  // namespace fp
