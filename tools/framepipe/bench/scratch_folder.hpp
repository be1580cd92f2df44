// A temporary folder of the bench's own under $TMPDIR (else /tmp), removed with everything in
// it when the object goes: ncu's log, and the outputs `bench --pipeline` encodes to measure.
#pragma once

#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace fp::bench {

class ScratchFolder {
 public:
  // `prefix` names it (framepipe-PREFIX-XXXXXX); throws std::runtime_error saying `what` it is for.
  ScratchFolder(const std::string& prefix, const std::string& what) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/framepipe-" + prefix + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::runtime_error("cannot make a temporary folder for " + what + " (TMPDIR)");
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace fp::bench
