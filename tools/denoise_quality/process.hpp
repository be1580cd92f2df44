// Runs another program (ffmpeg) with an argument vector, no shell: file names and filter
// strings need no quoting.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace fp::quality {

// Runs argv[0] (looked up in PATH) and waits for it; its stdout goes to `stdout_file` when
// given, else to ours; stderr stays ours. Returns its exit status; throws when it cannot be
// started (the message names the program) or dies of a signal.
int run_program(const std::vector<std::string>& argv, const std::filesystem::path& stdout_file = {});

// A fresh folder under the system's temporary one, removed with everything in it.
class TempFolder {
 public:
  explicit TempFolder(const std::string& prefix);
  ~TempFolder();
  TempFolder(const TempFolder&) = delete;
  TempFolder& operator=(const TempFolder&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace fp::quality
