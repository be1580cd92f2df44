// A PUT body read into a StreamSpec (service/stream_json.hpp, service/client_json.hpp): the
// bounds that keep one request from crashing the service (issue 27, item 1) — no recursion
// over the client's text, a nesting limit, a length limit on every field — and the YAML text
// each JSON value becomes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "service/client_json.hpp"
#include "service/json_response.hpp"
#include "service/stream_json.hpp"

namespace fp::service {
namespace {

using nlohmann::json;

// The HttpError a body gets: its status and message (0 and "" when it is taken).
std::pair<int, std::string> refusal(const std::string& body) {
  try {
    stream_spec_from_json("cam1", body, "smooth");
  } catch (const HttpError& e) {
    return {e.status(), e.what()};
  }
  return {0, ""};
}

std::string nested_list(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

TEST(StreamJson, PlainWordsStayPlainAndTheRestIsQuoted) {
  EXPECT_EQ(yaml_text("max_energy"), "max_energy");
  EXPECT_EQ(yaml_text("cuda:0"), "cuda:0");
  EXPECT_EQ(yaml_text("/data/in.mp4"), "/data/in.mp4");
  EXPECT_EQ(yaml_text("a b"), "\"a b\"");
  EXPECT_EQ(yaml_text("8"), "\"8\"");  // a string that YAML would read as a number
  EXPECT_EQ(yaml_text(""), "\"\"");
  for (const std::string word : {"yes", "YES", "Off", "null", "True", "~"}) EXPECT_EQ(yaml_text(word), "\"" + word + "\"");
  EXPECT_EQ(yaml_text("yesterday"), "yesterday");
  EXPECT_EQ(yaml_text("cuda:"), "\"cuda:\"");  // plain, YAML would read {cuda: null}
  EXPECT_EQ(yaml_text(8), "8");
  EXPECT_EQ(yaml_text(true), "true");
  EXPECT_EQ(yaml_text(json::array({1, 2})), "[1,2]");
}

// std::regex_match recursed once per character: a word of a million characters overflowed the
// stack (the service's HTTP worker's, at ~28,000). Now it is a loop, whatever the length.
TEST(StreamJson, AWordOfAnyLengthIsReadWithoutRecursion) {
  const std::string word(1'000'000, 'a');
  EXPECT_EQ(yaml_text(word), word);
  EXPECT_EQ(yaml_text(word + " "), "\"" + word + " \"");
}

TEST(StreamJson, EveryFieldHasALengthLimit) {
  const auto long_text = [](std::size_t n) { return std::string(n, 'a'); };
  const std::string uri = "testsrc://64x48@30";
  auto [status, why] = refusal(R"({"uri": "testsrc://)" + long_text(kMaxUriBytes) + R"("})");
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find("uri:"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(kMaxUriBytes)), std::string::npos) << why;
  EXPECT_EQ(why.find("aaaa"), std::string::npos) << "the text is quoted back: " << why.substr(0, 200);

  std::tie(status, why) = refusal(R"({"uri": ")" + uri + R"(", "set": {"smooth.radius": ")" + long_text(30'000) + R"("}})");
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find("set.smooth.radius"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(kMaxValueBytes)), std::string::npos) << why;

  std::tie(status, why) = refusal(R"({"uri": ")" + uri + R"(", "decode": {")" + long_text(kMaxNameBytes + 1) + R"(": 1}})");
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find("decode key"), std::string::npos) << why;

  std::tie(status, why) = refusal(R"({"uri": ")" + uri + R"(", "pipeline": ")" + long_text(kMaxNameBytes + 1) + R"("})");
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find("pipeline:"), std::string::npos) << why;

  std::tie(status, why) = refusal(R"({")" + long_text(100'000) + R"(": 1})");
  EXPECT_EQ(status, 400);
  EXPECT_LT(why.size(), 200u) << "an unknown key is quoted back whole";

  // A list value counts as the YAML text it becomes.
  json many = json::array();
  for (int i = 0; i < 2000; ++i) many.push_back(i);
  std::tie(status, why) = refusal(json{{"uri", uri}, {"set", {{"smooth.radius", many}}}}.dump());
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find("set.smooth.radius"), std::string::npos) << why;

  json entries = json::object();
  for (std::size_t i = 0; i <= kMaxMapEntries; ++i) entries["s.p" + std::to_string(i)] = 1;
  std::tie(status, why) = refusal(json{{"uri", uri}, {"set", entries}}.dump());
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find(std::to_string(kMaxMapEntries)), std::string::npos) << why;

  // What is within every limit is taken as it was.
  const auto spec = stream_spec_from_json(
      "cam1", json{{"uri", "testsrc://" + long_text(100)}, {"set", {{"smooth.radius", long_text(kMaxValueBytes)}}}}.dump(), "smooth");
  EXPECT_EQ(spec.sets.at("smooth.radius").size(), kMaxValueBytes);
}

// A deep list in a value reached nlohmann's dump(), which recurses once per level: the service
// crashed on a 400,000-deep array. It is refused while parsing, at the first level too deep.
TEST(StreamJson, NestingIsLimitedWhileParsing) {
  const std::string deep = R"({"uri": "testsrc://64x48@30", "set": {"smooth.radius": )" + nested_list(1'000'000) + "}}";
  const auto [status, why] = refusal(deep);
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find("nested deeper than " + std::to_string(kMaxJsonDepth)), std::string::npos) << why;
  // The limit is the body's depth, the body itself counted: kMaxJsonDepth levels parse.
  EXPECT_NO_THROW(parse_client_json(nested_list(kMaxJsonDepth)));
  EXPECT_THROW(parse_client_json(nested_list(kMaxJsonDepth + 1)), HttpError);
  const auto spec = stream_spec_from_json(
      "cam1", R"({"uri": "testsrc://64x48@30", "set": {"fuse.weights": [[1, 2], [3, 4]]}})", "smooth");
  EXPECT_EQ(spec.sets.at("fuse.weights"), "[[1,2],[3,4]]");
}

// nlohmann throws out_of_range, not parse_error, for a number beyond a double: it escaped the
// handler (fuzz_stream_spec_json's first finding; regressions/stream_spec_json/number-overflow).
TEST(StreamJson, ANumberOutOfRangeIsABadBody) {
  const auto [status, why] = refusal(R"({"uri": "testsrc://64x48@30", "set": {"smooth.radius": 11e3083}})");
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find("out of range"), std::string::npos) << why;
  EXPECT_EQ(refusal("[11e3083,],, 2").first, 400);
}

// A key with a newline in a refusal would forge a line in the service's log (found by
// fuzz_stream_spec_json: regressions/stream_spec_json/newline-in-a-key).
TEST(StreamJson, RefusalsShowKeysWithoutControlCharacters) {
  const std::vector<std::string> bodies = {R"({"\nuri": "x"})", R"({"uri": "x", "set": {"a.b\r\nforged": null}})",
                                           R"({"uri": "x", "set": {"a.b\n": ")" + std::string(5000, 'v') + R"("}})"};
  for (const auto& body : bodies) {
    const auto [status, why] = refusal(body);
    EXPECT_EQ(status, 400) << body;
    for (const char c : why) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20) << why;
  }
}

TEST(StreamJson, NotJsonNamesTheByteAndQuotesNothing) {
  const auto [status, why] = refusal(R"({"uri": "rtsp://user:secret@cam/x", oops})");
  EXPECT_EQ(status, 400);
  EXPECT_NE(why.find("at byte"), std::string::npos) << why;
  EXPECT_EQ(why.find("secret"), std::string::npos) << why;
}

}  // namespace
}  // namespace fp::service
