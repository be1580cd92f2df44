#include "pipeline/stream_spec/private_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>

namespace fp {

namespace {

namespace fs = std::filesystem;

// Tries before giving up on finding a free temporary name (each a fresh random one: only
// names planted on purpose, or a crash's leftovers, are ever taken).
constexpr int kNameAttempts = 100;

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error(what); }

std::string errno_text() { return std::strerror(errno); }

// An open descriptor, closed once whatever happens.
class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }
  // Closed now, to see close's own error (a delayed write error on some file systems).
  int close() {
    const int result = ::close(fd_);
    fd_ = -1;
    return result;
  }

 private:
  int fd_;
};

std::string random_suffix(std::mt19937_64& random) {
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::uniform_int_distribution<std::size_t> pick(0, sizeof kLetters - 2);
  std::string suffix;
  for (int i = 0; i < 12; ++i) suffix.push_back(kLetters[pick(random)]);
  return suffix;
}

void write_all(int fd, std::string_view text, const std::string& name) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(fmt::format("cannot write {}: {}", name, errno_text()));
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

void replace_private_file(const fs::path& file, std::string_view text) {
  std::random_device seed;
  std::mt19937_64 random((static_cast<std::uint64_t>(seed()) << 32) ^ seed());
  replace_private_file(file, text, [&random] { return random_suffix(random); });
}

void replace_private_file(const fs::path& file, std::string_view text, const TemporarySuffixes& suffixes) {
  const fs::path folder = file.parent_path().empty() ? fs::path(".") : file.parent_path();
  const std::string base = file.filename().string();
  if (base.empty() || base == "." || base == "..") fail("not a file name");
  Descriptor dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.get() < 0) fail(fmt::format("cannot open its folder {}: {}", folder.string(), errno_text()));

  std::string temporary;
  int fd = -1;
  for (int attempt = 0; attempt < kNameAttempts && fd < 0; ++attempt) {
    temporary = "." + base + ".tmp-" + suffixes();
    // 0600 from the start (not chmod after): no moment where another user may read it.
    fd = ::openat(dir.get(), temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno != EEXIST) fail(fmt::format("cannot create a temporary file in {}: {}", folder.string(), errno_text()));
  }
  if (fd < 0) fail(fmt::format("cannot create a temporary file in {}: every name tried was taken", folder.string()));
  Descriptor out(fd);
  const auto discard = [&] { ::unlinkat(dir.get(), temporary.c_str(), 0); };
  try {
    // Ours, just made: a umask that took the owner's bits away must not leave it unreadable.
    if (::fchmod(out.get(), 0600) != 0) fail(fmt::format("cannot chmod {}: {}", temporary, errno_text()));
    write_all(out.get(), text, temporary);
    if (::fsync(out.get()) != 0) fail(fmt::format("cannot fsync {}: {}", temporary, errno_text()));
    if (out.close() != 0) fail(fmt::format("cannot write {}: {}", temporary, errno_text()));
    if (::renameat(dir.get(), temporary.c_str(), dir.get(), base.c_str()) != 0)
      fail(fmt::format("cannot rename {} over it: {}", temporary, errno_text()));
  } catch (...) {
    discard();
    throw;
  }
  // The rename itself is durable once the folder is.
  ::fsync(dir.get());
}

}  // namespace fp
