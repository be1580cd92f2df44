// A client's JSON body, read with bounds: how deep it nests and how long each field is. Every
// route that parses a body goes through here, so that no client text reaches a recursive
// walk (nlohmann's dump(), yaml-cpp) or an unbounded copy before it is checked.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "pipeline/stream_spec/spec_reader.hpp"

namespace fp::service {

// How deep a body may nest: a stream spec needs 3 (body, "set", a list value) and DeepStream's
// 2; the margin is for lists of lists. Deeper bodies are refused while parsing, before the
// nesting is built, so that nothing recursive ever walks it.
inline constexpr int kMaxJsonDepth = 16;

// The longest text each kind of field may hold: a stream spec's (pipeline/stream_spec/spec_reader.hpp),
// which DeepStream's bodies share.
using fp::kMaxMapEntries;
using fp::kMaxNameBytes;
using fp::kMaxUriBytes;
using fp::kMaxValueBytes;

// The body parsed, or HttpError 400 naming the byte where it stops being JSON, a number out
// of range, or the depth it passed. The parser's own message is never quoted: it would echo the text (and a password).
nlohmann::json parse_client_json(const std::string& body);

// HttpError 400 when `text` (the field `key`) is longer than `max_bytes`, naming the key and
// the limit; the text itself is not quoted back.
void check_field_length(std::string_view key, std::string_view text, std::size_t max_bytes);

// A string field of an object, checked for type and length: "" when absent and not required.
std::string string_field(const nlohmann::json& object, std::string_view prefix, const char* key, bool required,
                         std::size_t max_bytes);

}  // namespace fp::service
