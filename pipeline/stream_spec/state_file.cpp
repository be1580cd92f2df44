#include "pipeline/stream_spec/state_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "core/small_file.hpp"
#include "pipeline/definition/config_error.hpp"
#include "pipeline/stream_spec/json_spec_fields.hpp"
#include "pipeline/stream_spec/private_file.hpp"

namespace fp {

namespace {

namespace fs = std::filesystem;
using OrderedJson = nlohmann::ordered_json;  // written in the order of its keys

constexpr int kVersion = 1;
// Far beyond what serve writes (a few hundred bytes a stream): a bound on what is read, not
// a limit on the streams.
constexpr std::size_t kMaxStateBytes = 256u << 20;

// A state file that cannot be read is a configuration error (exit 2), as a stream list or a
// token file that cannot be: the service refuses to start rather than run without its streams.
[[noreturn]] void fail(const fs::path& file, const std::string& what) {
  throw UsageError(fmt::format("state file {}: {}", file.string(), what));
}

// A stream's entry: its spec read by read_stream_spec (the rules the API and a stream list
// share; set and decode values are YAML text already, as serve wrote them), then what the
// file keeps beside it. Every value's type is checked, named by its key: a file edited by
// hand gets told which key is wrong, never the JSON library's words alone.
SavedStream saved_stream(const nlohmann::json& entry, const fs::path& file, std::size_t index) {
  const auto where = [&](const std::string& path) {
    return path.empty() ? fmt::format("streams[{}]", index) : fmt::format("streams[{}].{}", index, path);
  };
  const JsonSpecFields fields(entry, JsonSpecFields::Strings::AreYamlText,
                              [&](const std::string& path, const std::string& what) {
                                fail(file, fmt::format("{}: {}", where(path), what));
                              });
  SavedStream saved;
  // Control characters are the planner's to refuse: an entry an earlier version took is
  // restored as failed, with its reason, and the service starts.
  saved.spec = read_stream_spec(fields, {.name = {},
                                         .default_pipeline = {},
                                         .own_keys = {"source", "finished"},
                                         .refuse_control_characters = false});
  if (const auto finished = entry.find("finished"); finished != entry.end()) {
    if (!finished->is_boolean()) fields.fail("finished", "must be true or false");
    saved.finished = finished->get<bool>();
  }
  // Written since the stream list (absent in older files: those came from the API).
  if (const auto source = entry.find("source"); source != entry.end()) {
    if (*source == "list") saved.spec.source = StreamSource::List;
    else if (*source != "api") fields.fail("source", "must be \"api\" or \"list\"");
  }
  return saved;
}

// A learned cost: far beyond any stream's (a 1080p30 frame is 62 Mpx/s: 1000 cores per Mpx/s
// would be 62,000 cores), so that a value past it is a hand edit gone wrong.
constexpr double kMaxCoresPerMpps = 1000;
constexpr std::size_t kMaxDigestChars = 64;

std::map<std::string, LearnedCost> learned_costs_of(const nlohmann::json& document, const fs::path& file) {
  std::map<std::string, LearnedCost> costs;
  const auto found = document.find("learned_costs");
  if (found == document.end()) return costs;  // written since serve learns costs
  if (!found->is_object()) fail(file, "learned_costs: must be an object");
  for (const auto& [name, entry] : found->items()) {
    const auto where = [&](const char* key) { return fmt::format("learned_costs.{}.{}", printable_name(name), key); };
    if (!entry.is_object()) fail(file, fmt::format("learned_costs.{}: must be an object", printable_name(name)));
    const auto cost = entry.find("cores_per_mpps");
    if (cost == entry.end() || !cost->is_number() || !(cost->get<double>() >= 0) ||
        cost->get<double>() > kMaxCoresPerMpps)
      fail(file, fmt::format("{}: must be a number from 0 to {}", where("cores_per_mpps"), kMaxCoresPerMpps));
    const auto digest = entry.find("template");
    if (digest == entry.end() || !digest->is_string() || digest->get_ref<const std::string&>().size() > kMaxDigestChars)
      fail(file, fmt::format("{}: must be a string of at most {} characters", where("template"), kMaxDigestChars));
    costs[name] = LearnedCost{.cores_per_mpps = cost->get<double>(), .template_digest = digest->get<std::string>()};
  }
  return costs;
}

std::vector<SavedStream> streams_of(const nlohmann::json& document, const fs::path& file) {
  if (!document.is_object() || !document.contains("streams") || !document["streams"].is_array())
    fail(file, "not a framepipe state file: expected {\"version\": 1, \"streams\": [...]}");
  const auto version = document.find("version");
  if (version == document.end() || !version->is_number_integer()) fail(file, "version: must be a number");
  if (version->get<std::int64_t>() != kVersion)
    fail(file, fmt::format("version {} is not one this framepipe reads (it reads {})", version->dump(), kVersion));
  std::vector<SavedStream> streams;
  for (const auto& entry : document["streams"]) {
    if (!entry.is_object()) fail(file, fmt::format("streams[{}]: must be an object", streams.size()));
    streams.push_back(saved_stream(entry, file, streams.size()));
  }
  return streams;
}

}  // namespace

SavedState read_stream_state(const fs::path& file) {
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
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // Where and why, but not the parser's "; last read: '...'": a quote of the file's bytes,
    // which a cut-short file ends inside a URI's password, before the '@' that masking
    // looks for ("rtsp://user:sec").
    std::string what = e.what();
    if (const auto quote = what.find("; last read:"); quote != std::string::npos) what.erase(quote);
    fail(file, fmt::format("not valid JSON: {}", what));
  }
  try {
    return SavedState{.streams = streams_of(document, file), .learned_costs = learned_costs_of(document, file)};
  } catch (const nlohmann::json::exception& e) {
    // A shape the checks of streams_of did not foresee: still named by its file.
    fail(file, e.what());
  }
}

void write_stream_state(const fs::path& file, const SavedState& state) {
  OrderedJson list = OrderedJson::array();
  for (const auto& saved : state.streams)
    list.push_back({{"name", saved.spec.name},
                    {"pipeline", saved.spec.pipeline},
                    {"uri", saved.spec.uri},
                    {"set", saved.spec.sets},
                    {"decode", saved.spec.decode},
                    {"source", stream_source_name(saved.spec.source)},
                    {"finished", saved.finished}});
  OrderedJson costs = OrderedJson::object();
  for (const auto& [name, cost] : state.learned_costs)
    costs[name] = {{"cores_per_mpps", cost.cores_per_mpps}, {"template", cost.template_digest}};
  const std::string text =
      OrderedJson{{"version", kVersion}, {"streams", list}, {"learned_costs", costs}}.dump(2) + "\n";

  try {
    replace_private_file(file, text);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(fmt::format("state file {}: {}", file.string(), e.what()));  // a runtime failure, not fail()'s
  }
}

}  // namespace fp
