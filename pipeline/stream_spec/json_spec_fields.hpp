// A stream's fields in JSON, for read_stream_spec: the API's PUT body and an entry of the
// state file. The two differ in what a string in set/decode is: in the API, a JSON value
// (made YAML text by yaml_text: "a b" is quoted); in the state file, YAML text already
// (serve wrote spec.sets there as they were).
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "pipeline/stream_spec/spec_reader.hpp"

namespace fp {

// A JSON value as the YAML text `--set` takes: 8, true, max_energy, [1, 2], "a b". A word
// YAML would read otherwise (yes, 8, cuda:) is quoted. No regex or recursion over the text;
// dump() recurses over nesting, so values come from a parser that bounds it.
std::string yaml_text(const nlohmann::json& value);

class JsonSpecFields final : public SpecFields {
 public:
  enum class Strings { AreValues, AreYamlText };
  // `fail` throws the format's error for a field's path and what is wrong with it.
  using Fail = std::function<void(const std::string& path, const std::string& what)>;

  // `object` must be a JSON object and outlive this.
  JsonSpecFields(const nlohmann::json& object, Strings strings, Fail fail)
      : object_(object), strings_(strings), fail_(std::move(fail)) {}

  std::vector<std::string> keys() const override;
  FieldKind kind(const std::string& key) const override;
  std::string text(const std::string& key) const override;
  std::size_t size(const std::string& key) const override;
  std::vector<FieldEntry> entries(const std::string& key) const override;
  [[noreturn]] void fail(const std::string& path, const std::string& what) const override;

 private:
  const nlohmann::json& object_;
  Strings strings_;
  Fail fail_;
};

}  // namespace fp
