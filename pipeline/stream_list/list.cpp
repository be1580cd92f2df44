#include "pipeline/stream_list/list.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/printable_text.hpp"
#include "core/small_file.hpp"
#include "media/stream_uri.hpp"
#include "pipeline/stream_spec/spec_reader.hpp"

namespace fp {

namespace {

[[noreturn]] void fail(const std::string& file, const YAML::Mark& mark, const std::string& what) {
  // yaml-cpp counts lines from 0; a node without a position (-1) gives none.
  const std::string where = mark.line >= 0 ? fmt::format("{}:{}", file, mark.line + 1) : file;
  throw StreamListError(mask_uris_in_text(fmt::format("{}: {}", where, what)));
}

// What a node holds, in the words a spec's fields use (spec_reader.hpp). A scalar is Text:
// YAML itself says what it is when the template reads it.
FieldKind yaml_kind(const YAML::Node& node) {
  if (!node.IsDefined()) return FieldKind::Absent;
  if (node.IsNull()) return FieldKind::Null;
  if (node.IsSequence()) return FieldKind::List;
  if (node.IsMap()) return FieldKind::Map;
  return FieldKind::Text;
}

// As a refusal names it: a scalar quoted, else its kind.
std::string kind_of(const YAML::Node& node) {
  return node.IsScalar() ? "'" + node.Scalar() + "'" : std::string(field_kind_words(yaml_kind(node)));
}

// A list's entry, for read_stream_spec (the rules the API and the state file share). A
// scalar is the YAML text a template's --set takes as written; a list, in flow style ([1, 2]).
class YamlSpecFields final : public SpecFields {
 public:
  YamlSpecFields(const YAML::Node& entry, std::string where, const std::string& file)
      : entry_(entry), where_(std::move(where)), file_(file) {}

  std::vector<std::string> keys() const override {
    std::vector<std::string> keys;
    for (const auto& item : entry_) keys.push_back(item.first.Scalar());
    return keys;
  }
  FieldKind kind(const std::string& key) const override { return yaml_kind(entry_[key]); }
  std::string text(const std::string& key) const override { return entry_[key].Scalar(); }
  std::size_t size(const std::string& key) const override { return entry_[key].size(); }
  std::vector<FieldEntry> entries(const std::string& key) const override {
    std::vector<FieldEntry> entries;
    for (const auto& item : entry_[key]) {
      const YAML::Node& value = item.second;
      FieldEntry entry{item.first.Scalar(), yaml_kind(value), "", std::nullopt};
      if (value.IsScalar()) {
        entry.yaml_text = value.Scalar();
        entry.control_character = control_character_problem(value.Scalar());
      } else if (value.IsSequence()) {
        for (const auto& element : value)
          if (element.IsScalar() && !entry.control_character)
            entry.control_character = control_character_problem(element.Scalar());
        YAML::Emitter flow;
        flow << YAML::Flow << value;
        entry.yaml_text = flow.c_str();
      }
      entries.push_back(std::move(entry));
    }
    return entries;
  }
  // At the line of the value the path names (its key's, for a key of set or decode), or of
  // the entry when it has none.
  [[noreturn]] void fail(const std::string& path, const std::string& what) const override {
    YAML::Mark mark = entry_.Mark();
    const std::string key = path.substr(0, path.find('.'));
    if (!key.empty() && entry_[key].IsDefined()) {
      mark = entry_[key].Mark();
      if (key.size() < path.size() && entry_[key].IsMap())
        if (const YAML::Node value = entry_[key][path.substr(key.size() + 1)]; value.IsDefined()) mark = value.Mark();
    }
    fp::fail(file_, mark, path.empty() ? fmt::format("{}: {}", where_, what) : fmt::format("{}.{}: {}", where_, path, what));
  }

 private:
  const YAML::Node& entry_;
  std::string where_;
  const std::string& file_;
};

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
    StreamSpec spec = read_stream_spec(YamlSpecFields(entry, where, file), {.name = {}, .default_pipeline = default_pipeline, .own_keys = {}});
    spec.source = StreamSource::List;
    if (!names.insert(spec.name).second)
      fail(file, entry["name"].Mark(), fmt::format("{}.name: {} is listed twice", where, spec.name));
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
