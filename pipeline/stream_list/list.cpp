#include "pipeline/stream_list/list.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/small_file.hpp"
#include "media/stream_uri.hpp"
#include "pipeline/streams/template.hpp"

namespace fp {

namespace {

[[noreturn]] void fail(const std::string& file, const YAML::Mark& mark, const std::string& what) {
  // yaml-cpp counts lines from 0; a node without a position (-1) gives none.
  const std::string where = mark.line >= 0 ? fmt::format("{}:{}", file, mark.line + 1) : file;
  throw StreamListError(mask_uris_in_text(fmt::format("{}: {}", where, what)));
}

std::string kind_of(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a map";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "nothing";
    default: return "'" + node.Scalar() + "'";
  }
}

std::string text_of(const YAML::Node& entry, const char* key, const std::string& where, const std::string& file) {
  const YAML::Node value = entry[key];
  // A missing key's node is not valid: asking it anything but IsDefined() throws.
  if (!value.IsDefined()) fail(file, entry.Mark(), fmt::format("{}.{}: missing", where, key));
  if (!value.IsScalar() || value.Scalar().empty())
    fail(file, value.Mark(), fmt::format("{}.{}: expected a text, got {}", where, key, kind_of(value)));
  return value.Scalar();
}

// A parameter's value as the YAML text a template's --set takes: a scalar as written, a
// list in flow style ([1, 2]).
std::map<std::string, std::string> parameters_of(const YAML::Node& entry, const char* key, const std::string& where,
                                                 const std::string& file) {
  std::map<std::string, std::string> values;
  const YAML::Node map = entry[key];
  if (!map.IsDefined() || map.IsNull()) return values;
  if (!map.IsMap())
    fail(file, map.Mark(),
         fmt::format("{}.{}: expected a map of {} -> value, got {}", where, key,
                     std::string(key) == "set" ? "STAGE.PARAM" : "PARAM", kind_of(map)));
  for (const auto& item : map) {
    const std::string name = item.first.Scalar();
    const YAML::Node& value = item.second;
    if (value.IsScalar()) {
      values[name] = value.Scalar();
    } else if (value.IsSequence()) {
      YAML::Emitter flow;
      flow << YAML::Flow << value;
      values[name] = flow.c_str();
    } else {
      fail(file, value.Mark(),
           fmt::format("{}.{}.{}: expected a number, text, boolean or list, got {}", where, key, name, kind_of(value)));
    }
  }
  return values;
}

}  // namespace

namespace {

std::vector<StreamSpec> parse_document(const std::string& text, const std::string& file,
                                       const std::string& default_pipeline) {
  YAML::Node document;
  try {
    document = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    fail(file, e.mark, "not valid YAML: " + e.msg);
  }
  std::vector<StreamSpec> specs;
  if (document.IsNull()) throw StreamListEmpty(file + ": empty file (only blank lines or comments)");
  if (!document.IsMap()) fail(file, document.Mark(), "expected a map with the key 'streams', got " + kind_of(document));
  for (const auto& item : document)
    if (item.first.Scalar() != "streams")
      fail(file, item.first.Mark(), fmt::format("{}: unknown key (a stream list has only 'streams')", item.first.Scalar()));
  const YAML::Node streams = document["streams"];
  if (!streams.IsDefined()) throw StreamListEmpty(file + ": no `streams:` key");
  // Followed by nothing but comments: a file cut after its first line reads so.
  if (streams.IsNull()) throw StreamListEmpty(file + ": empty file (`streams:` with no list after it)");
  if (!streams.IsSequence()) fail(file, streams.Mark(), "streams: expected a list of streams, got " + kind_of(streams));
  std::set<std::string> names;
  for (std::size_t i = 0; i < streams.size(); ++i) {
    const YAML::Node entry = streams[i];
    const std::string where = fmt::format("streams[{}]", i);
    if (!entry.IsMap()) fail(file, entry.Mark(), fmt::format("{}: expected a map (name, uri, ...), got {}", where, kind_of(entry)));
    for (const auto& key : entry) {
      const std::string name = key.first.Scalar();
      if (name != "name" && name != "uri" && name != "pipeline" && name != "set" && name != "decode")
        fail(file, key.first.Mark(), fmt::format("{}.{}: unknown key (expected name, uri, pipeline, set, decode)", where, name));
    }
    StreamSpec spec;
    spec.source = StreamSource::List;
    spec.name = text_of(entry, "name", where, file);
    try {
      check_stream_name(spec.name);
    } catch (const StreamRejected& e) {
      fail(file, entry["name"].Mark(), fmt::format("{}.name: {}", where, e.what()));
    }
    if (!names.insert(spec.name).second)
      fail(file, entry["name"].Mark(), fmt::format("{}.name: {} is listed twice", where, spec.name));
    spec.uri = text_of(entry, "uri", where, file);
    spec.pipeline = entry["pipeline"].IsDefined() ? text_of(entry, "pipeline", where, file) : default_pipeline;
    spec.sets = parameters_of(entry, "set", where, file);
    spec.decode = parameters_of(entry, "decode", where, file);
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace

std::vector<StreamSpec> parse_stream_list(const std::string& text, const std::string& file,
                                          const std::string& default_pipeline) {
  try {
    return parse_document(text, file, default_pipeline);
  } catch (const YAML::Exception& e) {  // a shape the checks above did not foresee: still named
    throw StreamListError(mask_uris_in_text(fmt::format("{}: {}", file, e.what())));
  }
}

std::string read_stream_list_text(const std::filesystem::path& file) {
  try {
    return read_small_file(file, kMaxStreamListBytes);
  } catch (const SmallFileError& e) {
    throw StreamListError(fmt::format("{}: cannot read the stream list: {}", file.string(), e.what()));
  }
}

std::vector<StreamSpec> read_stream_list(const std::filesystem::path& file, const std::string& default_pipeline) {
  return parse_stream_list(read_stream_list_text(file), file.string(), default_pipeline);
}

}  // namespace fp
