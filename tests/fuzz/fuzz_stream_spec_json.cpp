// Fuzz target: the body of PUT /v1/streams/{name} (and, through parse_client_json, of the
// DeepStream routes) read into a StreamSpec: service/stream_json.cpp and client_json.cpp.
//
// What must hold: no crash, no stack overflow (a body of any nesting, a field of any length);
// the body is taken, with every field within its limit, or refused with HttpError 400 whose
// message is one short printable line that quotes no long client text; a body taken holds no
// control character in any path, name or URI it gives (uri, pipeline, each set/decode key and
// string, lists' strings included: a NUL would end a path at the system call); and a string
// given in "set" or "decode" reads back from its YAML text (what --set parses) as the same
// string.
#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "service/client_json.hpp"
#include "service/json_response.hpp"
#include "service/stream_json.hpp"
#include "tests/fuzz/fuzz_check.hpp"

namespace {

using fp::fuzz::require;
using nlohmann::json;

bool one_printable_line(const std::string& text) {
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  return true;
}

// No string anywhere in `value` (an array's too) holds a control character.
void require_printable(const json& value, const char* what) {
  if (value.is_string()) {
    require(one_printable_line(value.get<std::string>()), what);
  } else if (value.is_array()) {
    for (const auto& item : value) require_printable(item, what);
  }
}

void check_map(const std::map<std::string, std::string>& values, const json& given) {
  require(values.size() <= fp::service::kMaxMapEntries, "more entries taken than the limit");
  for (const auto& [key, text] : values) {
    require(key.size() <= fp::service::kMaxNameBytes, "a key longer than its limit taken");
    require(text.size() <= fp::service::kMaxValueBytes, "a value longer than its limit taken");
    require(one_printable_line(key), "a key with a control character taken");
    const auto& original = given.at(key);
    require_printable(original, "a value with a control character taken");
    if (!original.is_string()) continue;
    YAML::Node read_back;
    try {
      read_back = YAML::Load(text);
    } catch (const YAML::Exception&) {
      require(false, "a string value's YAML text does not parse");
    }
    // "null" and "~" written by the client are quoted, so they read back as text.
    require(read_back.IsScalar(), "a string value's YAML text reads back as no scalar");
    require(read_back.as<std::string>() == original.get<std::string>(),
            "a string value's YAML text reads back as another string");
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string body(reinterpret_cast<const char*>(data), size);
  fp::StreamSpec spec;
  try {
    spec = fp::service::stream_spec_from_json("cam1", body, "smooth");
  } catch (const fp::service::HttpError& e) {
    const std::string why = e.what();
    require(e.status() == 400, "a bad body answered with a status other than 400");
    require(one_printable_line(why), "a refusal that is not one printable line");
    // The longest message names one key of kMaxNameBytes (each byte at most a 4-character
    // escape) and the limits; client text beyond that is never quoted back.
    require(why.size() <= 4 * fp::service::kMaxNameBytes + 200, "a refusal that quotes long client text");
    return 0;
  }
  require(!spec.uri.empty() && spec.uri.size() <= fp::service::kMaxUriBytes, "a uri empty or over its limit taken");
  require(spec.pipeline.size() <= fp::service::kMaxNameBytes, "a pipeline name over its limit taken");
  const json given = json::parse(body);  // taken, so it parses
  require(one_printable_line(spec.uri), "a uri with a control character taken");
  require(one_printable_line(spec.pipeline), "a pipeline name with a control character taken");
  check_map(spec.sets, given.value("set", json::object()));
  check_map(spec.decode, given.value("decode", json::object()));
  return 0;
}
