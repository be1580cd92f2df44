// One rule for a stream's spec, whichever text carries it (issue 30): the body of PUT
// /v1/streams/NAME, an entry of a stream list and one of the state file are read by the same
// function (pipeline/stream_spec/spec_reader.hpp), so the same fields give the same spec, and the
// same mistake the same words after each format's own "where" (FILE:LINE, state file F).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <unistd.h>

#include "pipeline/stream_list/list.hpp"
#include "pipeline/stream_spec/state_file.hpp"
#include "service/json_response.hpp"
#include "service/stream_json.hpp"
#include "tests/text_files.hpp"

namespace fp {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What each format makes of `fields` (a stream's keys but its name, which is "cam1"): the spec,
// or the refusal with the format's "where" cut off.
struct Read {
  std::optional<StreamSpec> spec;
  std::string refusal;
};

Read from_api(const json& fields) {
  try {
    return {service::stream_spec_from_json("cam1", fields.dump(), "smooth"), ""};
  } catch (const service::HttpError& e) {
    return {std::nullopt, e.what()};
  }
}

// JSON is YAML's flow style: the same text is a list's entry.
Read from_list(const json& fields) {
  json entry = fields;
  entry["name"] = "cam1";
  try {
    auto specs = parse_stream_list("streams:\n  - " + entry.dump() + "\n", "streams.yaml", "smooth");
    return {specs.at(0), ""};
  } catch (const StreamListError& e) {
    const std::string what = e.what();
    const std::string where = "streams.yaml:2: streams[0].";
    EXPECT_EQ(what.rfind(where, 0), 0u) << what;
    return {std::nullopt, what.substr(what.rfind(where, 0) == 0 ? where.size() : 0)};
  }
}

// The state file keeps set and decode values as YAML text: a number's text is its own.
Read from_state(const json& fields) {
  json entry = fields;
  entry["name"] = "cam1";
  if (!entry.contains("pipeline")) entry["pipeline"] = "smooth";  // always written by serve
  const fs::path file = fs::temp_directory_path() / ("fp-spec-formats-" + std::to_string(getpid()) + ".json");
  test::write_text(file, json{{"version", 1}, {"streams", json::array({entry})}}.dump());
  Read read;
  try {
    read.spec = read_stream_state(file).streams.at(0).spec;
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    const std::string where = "state file " + file.string() + ": streams[0].";
    EXPECT_EQ(what.rfind(where, 0), 0u) << what;
    read.refusal = what.substr(what.rfind(where, 0) == 0 ? where.size() : 0);
  }
  fs::remove(file);
  return read;
}

TEST(StreamSpecFormats, TheSameFieldsGiveTheSameSpec) {
  const json fields = {{"uri", "testsrc://64x48@30"},
                       {"pipeline", "camera"},
                       {"set", {{"smooth.radius", 3}, {"fuse.weights", {1, 2}}, {"denoise.mode", "max_energy"}}},
                       {"decode", {{"reconnect", "forever"}}}};
  auto api = from_api(fields).spec;
  auto list = from_list(fields).spec;
  auto state = from_state(fields).spec;
  ASSERT_TRUE(api && list && state) << from_api(fields).refusal << from_list(fields).refusal << from_state(fields).refusal;
  EXPECT_EQ(api->sets.at("smooth.radius"), "3");
  EXPECT_EQ(api->decode.at("reconnect"), "forever");
  // A list is YAML flow text in each, spaced as its writer spaces it ("[1, 2]", "[1,2]").
  const auto unspaced = [](std::string text) {
    std::erase(text, ' ');
    return text;
  };
  for (auto* read : {&*list, &*state}) {
    EXPECT_EQ(read->name, api->name);
    EXPECT_EQ(read->uri, api->uri);
    EXPECT_EQ(read->pipeline, api->pipeline);
    EXPECT_EQ(read->decode, api->decode);
    EXPECT_EQ(read->sets.size(), api->sets.size());
    for (const auto& [key, text] : api->sets) EXPECT_EQ(unspaced(read->sets.at(key)), text) << key;
  }
  // Without a pipeline, the API and a list take the default.
  json without = fields;
  without.erase("pipeline");
  EXPECT_EQ(from_api(without).spec->pipeline, "smooth");
  EXPECT_EQ(from_list(without).spec->pipeline, "smooth");
}

TEST(StreamSpecFormats, TheSameMistakeIsRefusedInTheSameWords) {
  const json good = {{"uri", "testsrc://64x48@30"}, {"pipeline", "smooth"}};
  const auto with = [&](const char* key, const json& value) {
    json fields = good;
    fields[key] = value;
    return fields;
  };
  json no_uri = good;
  no_uri.erase("uri");
  json many = json::object();
  for (int i = 0; i <= 64; ++i) many["s.p" + std::to_string(i)] = 1;
  const std::vector<std::pair<json, std::string>> cases = {
      {no_uri, "uri: missing"},
      {with("uri", json::array({"x"})), "uri: expected a string, got a list"},
      {with("uri", ""), "uri: empty"},
      {with("uri", "testsrc://" + std::string(5000, 'a')), "uri: 5010 bytes, longer than the 4096 allowed"},
      {with("pipeline", ""), "pipeline: empty"},
      {with("set", json::array({1})), "set: expected a map of STAGE.PARAM -> value, got a list"},
      {with("decode", json::array({1})), "decode: expected a map of PARAM -> value, got a list"},
      {with("set", {{"s.r", {{"x", 1}}}}), "set.s.r: expected a number, text, boolean or list, got a map"},
      {with("set", many), "set: 65 entries, more than the 64 allowed"},
      {with("set", {{"s.r", std::string(5000, 'a')}}), "set.s.r: 5000 bytes, longer than the 4096 allowed"},
      {with("url", "x"), "url: unknown key (expected "},
  };
  for (const auto& [fields, says] : cases) {
    SCOPED_TRACE(fields.dump().substr(0, 120));
    EXPECT_EQ(from_api(fields).refusal.substr(0, says.size()), says);
    EXPECT_EQ(from_list(fields).refusal.substr(0, says.size()), says);
    EXPECT_EQ(from_state(fields).refusal.substr(0, says.size()), says);
  }
}

// A NUL inside an output path hung the whole service (issue 43): "s1.mkv\0.mkv" opened as
// s1.mkv, so every suffix beside it looked taken. The API and a list refuse a control
// character in any text of a spec, naming the field; the state file reads it (an earlier
// version may have saved one) and leaves it to the planner, which restores that stream as
// failed instead of keeping the service from starting.
TEST(StreamSpecFormats, AControlCharacterIsRefusedWhereTheSpecIsRead) {
  const json good = {{"uri", "testsrc://64x48@30"}, {"pipeline", "smooth"}};
  const auto with = [&](const char* key, const json& value) {
    json fields = good;
    fields[key] = value;
    return fields;
  };
  const std::string nul("s1.mkv\0.mkv", 11);
  const std::vector<std::pair<json, std::string>> cases = {
      {with("uri", "testsrc://64x48@30\n"), "uri: holds a control character (\\n at byte 18)"},
      {with("pipeline", "smo\x7fth"), "pipeline: holds a control character (\\x7f at byte 3)"},
      {with("set", {{"out.output", nul}}), "set.out.output: holds a control character (\\x00 at byte 6)"},
      {with("set", {{"fuse.weights", json::array({"1", "2\t"})}}), "set.fuse.weights: holds a control character"},
      {with("decode", {{"uri\r", "x"}}), "decode key: holds a control character"},
  };
  for (const auto& [fields, says] : cases) {
    SCOPED_TRACE(says);
    EXPECT_EQ(from_api(fields).refusal.substr(0, says.size()), says);
    EXPECT_EQ(from_list(fields).refusal.substr(0, says.size()), says);
    const Read state = from_state(fields);
    EXPECT_TRUE(state.spec.has_value()) << state.refusal;
  }
}

}  // namespace
}  // namespace fp
