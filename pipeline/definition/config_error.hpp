// Configuration errors: every problem in a pipeline file (or on the command line) is
// collected and reported together, each as FILE:LINE:COL: KEY: MESSAGE.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace fp {

// The file of an issue about a command-line option (-i, -o, --set, --stats-json).
inline constexpr const char* kCommandLine = "command line";

struct ConfigIssue {
  std::string file;  // the pipeline file, or "command line" for --set/-i/-o/--device
  int line = 0;      // 1-based; 0 when not known
  int column = 0;    // 1-based; 0 when not known
  std::string key;   // e.g. "stages[3].h"; may be empty
  std::string message;

  // "FILE:LINE:COL: KEY: MESSAGE" (parts that are unknown are left out), one line of
  // printable text: control characters in the parts are written as \n, \t, \x00..., and
  // URIs masked (mask_uris_in_text: no password, no secret query value).
  std::string format() const;
};

class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<ConfigIssue> issues);
  const std::vector<ConfigIssue>& issues() const { return issues_; }

 private:
  std::vector<ConfigIssue> issues_;
};

}  // namespace fp

namespace fp {

// A request that is well-formed but cannot be served here (e.g. a device that does not
// exist): a usage error, exit code 2, like ConfigError.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fp
