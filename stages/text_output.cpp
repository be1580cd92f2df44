#include "stages/text_output.hpp"

#include <fmt/format.h>

#include <stdio.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "core/open_beneath.hpp"

namespace fp {

TextOutput::~TextOutput() { abandon(); }

void TextOutput::open(std::string path, const std::filesystem::path* beneath_root) {
  abandon();
  path_ = std::move(path);
  if (beneath_root == nullptr) {
    file_ = std::fopen(path_.c_str(), "w");
    if (file_ == nullptr) fail("cannot create", errno);
    return;
  }
  UniqueFd fd;
  try {
    fd = create_within(path_, *beneath_root);
  } catch (const std::system_error& e) {
    throw std::runtime_error(fmt::format("cannot create: {}", e.what()));  // e.what() names the path
  }
  file_ = ::fdopen(fd.get(), "w");
  if (file_ == nullptr) fail("cannot create", errno);
  fd.release();  // the FILE owns it now
}

void TextOutput::write(std::string_view text) {
  if (file_ == nullptr) throw std::logic_error(path_ + ": write to a closed file");
  if (std::fwrite(text.data(), 1, text.size(), file_) != text.size()) {
    const int error = errno;  // set by the write(2) that failed
    abandon();
    fail("cannot write", error);
  }
}

void TextOutput::close() {
  if (file_ == nullptr) return;
  // The buffered tail goes out here: flush first, so its error is told apart from the
  // close's and errno is the write's.
  if (std::fflush(file_) != 0) {
    const int error = errno;
    abandon();
    fail("cannot write", error);
  }
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0) fail("cannot write", errno);
}

void TextOutput::abandon() noexcept {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
}

void TextOutput::fail(const char* what, int error) {
  throw std::runtime_error(fmt::format("{}: {}: {}", path_, what, std::strerror(error != 0 ? error : EIO)));
}

}  // namespace fp
