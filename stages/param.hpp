// A stage's parameters: one table (name, type, default, range, help) per stage drives YAML
// validation, `framepipe stages` and docs/stages.md, like libavfilter's AVOption tables.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace fp {

enum class ParamType {
  Int,        // integer; `keywords` lists words accepted instead of a number (e.g. otsu)
  Float,      // real number
  String,     // free text (e.g. a URI)
  Path,       // an output file path
  Enum,       // one of `keywords`
  FloatList,  // a YAML sequence of reals
};

using ParamValue = std::variant<std::int64_t, double, std::string, std::vector<double>>;

struct ParamRange {
  std::optional<double> min;
  std::optional<double> max;
  bool min_exclusive = false;  // "must be > min" instead of ">= min"
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Int;
  std::string help;                         // one line
  std::optional<ParamValue> default_value;  // none: the parameter is required
  ParamRange range;                         // Int, Float and each FloatList element
  std::vector<std::string> keywords;        // Enum values, or words an Int also accepts
  bool odd = false;                         // Int: must be odd
  // Int: the largest value the CUDA backend takes, where it is below range.max. Validation
  // applies it whenever the pipeline is meant for a CUDA device (even in a build without
  // CUDA), so a value the kernel would refuse is a configuration error, not a failed run.
  std::optional<std::int64_t> cuda_max;
};

// Parameter values after validation: every parameter of the stage's table is present
// (given or defaulted), with the table's type.
class StageParams {
 public:
  void set(const std::string& name, ParamValue value) { values_[name] = std::move(value); }
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  const ParamValue& get(const std::string& name) const;  // throws std::out_of_range naming it

  std::int64_t integer(const std::string& name) const;
  double real(const std::string& name) const;  // also accepts an integer value
  const std::string& text(const std::string& name) const;
  const std::vector<double>& list(const std::string& name) const;
  // True when an Int parameter holds one of its keywords (then text() returns it).
  bool is_keyword(const std::string& name) const;

  const std::map<std::string, ParamValue>& values() const { return values_; }

 private:
  std::map<std::string, ParamValue> values_;
};

// Text for the table: "int", "float", "enum", ... and a value as YAML would spell it.
std::string type_name(const ParamSpec& spec);
std::string format_value(const ParamValue& value);
// "[1, 32]", "> 0", "odd, [1, 15]", "average|max_abs|max_energy", or "" when unconstrained;
// a CUDA limit is added as "[1, 1024]; cuda <= 32".
std::string describe_range(const ParamSpec& spec);

}  // namespace fp
