// One reading of a stream's fields, whichever text carries them: the body of PUT
// /v1/streams/NAME (JSON), an entry of a stream list (YAML) or of the state file (JSON).
// Each format says only what its syntax holds (SpecFields: keys, what kind each value is,
// its text); the rules — which keys there are, which are needed, what each may hold and how
// long — are read_stream_spec's, once, so that the three can never disagree again.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipeline/stream_spec/spec.hpp"

namespace fp {

// The longest text each field of a spec may hold, in bytes: generous for any real value (a URI
// with its query, a stage parameter's list), and small enough that a few of them in every
// stream cost nothing next to the frames. The same for the API, a list and the state file.
inline constexpr std::size_t kMaxUriBytes = 4096;
inline constexpr std::size_t kMaxNameBytes = 128;    // a pipeline, a key, a STAGE.PARAM
inline constexpr std::size_t kMaxValueBytes = 4096;  // a set or decode value, as YAML text
inline constexpr std::size_t kMaxMapEntries = 64;    // entries in "set" or "decode"

// What a value holds, in words that JSON and YAML share. A YAML scalar is Text: YAML itself
// says what it is when the template reads it.
enum class FieldKind { Absent, Null, Text, Number, Boolean, List, Map };
// "nothing", "a string", "a number", "a boolean", "a list", "a map".
std::string_view field_kind_words(FieldKind kind);

// An entry of set or decode: its name, what its value is, and that value as the YAML text
// `--set` takes (for Text, Number, Boolean and List; "" otherwise).
struct FieldEntry {
  std::string name;
  FieldKind kind = FieldKind::Null;
  std::string yaml_text;
  // Why the value, as the format decoded it (a string, or each string of a list), holds a
  // control character (control_character_problem); nothing when it holds none, or when the
  // format keeps YAML text it does not decode (the state file: the planner reads it).
  std::optional<std::string> control_character;
};

// A stream's fields as one format holds them.
class SpecFields {
 public:
  virtual ~SpecFields() = default;
  virtual std::vector<std::string> keys() const = 0;  // as written, in order
  virtual FieldKind kind(const std::string& key) const = 0;
  virtual std::string text(const std::string& key) const = 0;               // of a Text
  virtual std::size_t size(const std::string& key) const = 0;               // of a Map
  virtual std::vector<FieldEntry> entries(const std::string& key) const = 0;  // of a Map
  // Throws the format's own error for the field `path` ("uri", "set.denoise.h"; "" for the
  // entry itself): the format adds where it is (FILE:LINE, streams[3]) and its kind of error.
  [[noreturn]] virtual void fail(const std::string& path, const std::string& what) const = 0;
};

// How a format's entry differs from the others, and no more.
struct SpecReading {
  // The API's name is its path's, checked by the route before the body is read (not again
  // here); a list's and the state file's, a key, checked here.
  std::optional<std::string> name;
  // For a spec without "pipeline"; empty: "pipeline" is needed (the state file always has it).
  std::string default_pipeline;
  // Keys the format keeps beside the spec (the state file's "source", "finished"): allowed,
  // and left to the format to read from its own text.
  std::vector<std::string> own_keys;
  // Refuse, as the entry is read, a control character in the uri, the pipeline, a key or a
  // value of set or decode (a NUL would cut a path short at its open). The state file leaves
  // them to the planner, so that an entry an earlier version took is restored as failed,
  // saying why, instead of keeping the service from starting.
  bool refuse_control_characters = true;
};

// The spec of `fields`, with source Api (the format sets its own). Refuses, through
// fields.fail: an unknown key; a missing name (unless given) or uri, or one that is not a
// string; a name read from the fields that is no stream name (check_stream_name); an empty uri or pipeline; set or
// decode that is not a map (nothing is an empty one), of more than kMaxMapEntries entries, or
// with a value that is nothing or a map; any text over its limit; a control character in any
// text (unless the reading leaves them to the planner). Keys are quoted printable
// (core/printable_text.hpp), long ones not at all; values never (a uri holds a password).
StreamSpec read_stream_spec(const SpecFields& fields, const SpecReading& reading);

}  // namespace fp
