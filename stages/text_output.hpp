// A text file written with every failure named: the write, the flush at close (a full disk
// or /dev/full often shows only there, since writes are buffered) and the close itself.
// std::ofstream reports none of these with a reason, so the rows and --stats-json use this.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace fp {

class TextOutput {
 public:
  TextOutput() = default;
  explicit TextOutput(std::string path) { open(std::move(path)); }
  ~TextOutput();  // closes; an error then is dropped: call close() to see it
  TextOutput(const TextOutput&) = delete;
  TextOutput& operator=(const TextOutput&) = delete;

  // Creates or truncates the file; with `beneath_root` (a service's output root) only beneath
  // it, as core/open_beneath.hpp opens. Throws std::runtime_error "PATH: cannot create: REASON".
  void open(std::string path, const std::filesystem::path* beneath_root = nullptr);
  // Throws std::runtime_error "PATH: cannot write: REASON".
  void write(std::string_view text);
  // Flushes and closes; idempotent. Throws like write() when the data did not all get out.
  void close();
  // Closes without reporting anything: after a failure, to let go of the file.
  void abandon() noexcept;

  bool is_open() const { return file_ != nullptr; }
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const char* what, int error);

  std::string path_;
  std::FILE* file_ = nullptr;
};

}  // namespace fp
