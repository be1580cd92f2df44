#include "core/open_beneath.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <system_error>

namespace fp {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void fail(int error, const fs::path& path, const std::string& what) {
  throw std::system_error(error, std::generic_category(), path.string() + ": " + what);
}

bool is_within(const fs::path& path, const fs::path& root) {
  const fs::path relative = path.lexically_relative(root);
  return !relative.empty() && *relative.begin() != ".." && relative != ".";
}

// `relative` is what the caller asked beneath the root: no way up, no absolute path.
void check_relative(const fs::path& root, const fs::path& relative) {
  if (relative.empty() || relative.is_absolute()) fail(EINVAL, root / relative, "not a path beneath " + root.string());
  for (const auto& part : relative)
    if (part == "..") fail(EXDEV, root / relative, "leads out of " + root.string());
}

UniqueFd open_root(const fs::path& root) {
  UniqueFd fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  if (!fd) fail(errno, root, "cannot open the directory");
  return fd;
}

}  // namespace

UniqueFd open_beneath(const fs::path& root, const fs::path& relative, int flags, mode_t mode) {
  check_relative(root, relative);
  const UniqueFd dir = open_root(root);
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
  how.mode = (flags & O_CREAT) != 0 ? mode : 0;  // openat2 refuses a mode without O_CREAT
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const long fd = ::syscall(SYS_openat2, dir.get(), relative.c_str(), &how, sizeof how);
  if (fd >= 0) return UniqueFd(static_cast<int>(fd));
  // ENOSYS before Linux 5.6; EPERM from container runtimes whose seccomp profile predates
  // openat2 (Docker's before 20.10 answers EPERM for a system call it does not know).
  if (errno == ENOSYS || errno == EPERM) return open_beneath_by_components(root, relative, flags, mode);
  const int error = errno;
  fail(error, root / relative, error == EXDEV || error == ELOOP ? "leads out of " + root.string() : "cannot open");
}

UniqueFd open_beneath_by_components(const fs::path& root, const fs::path& relative, int flags, mode_t mode) {
  check_relative(root, relative);
  UniqueFd dir = open_root(root);
  std::vector<fs::path> parts;
  for (const auto& part : relative)
    if (!part.empty() && part != ".") parts.push_back(part);
  if (parts.empty()) fail(EINVAL, root / relative, "not a file beneath " + root.string());
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    // O_DIRECTORY with O_NOFOLLOW: a symlink here is no directory (ENOTDIR), wherever it points.
    UniqueFd next(::openat(dir.get(), parts[i].c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next) {
      const int error = errno;
      fail(error, root / relative, error == ENOTDIR || error == ELOOP ? "leads out of " + root.string() + " (a symlink?)"
                                                                     : "cannot open");
    }
    dir = std::move(next);
  }
  UniqueFd fd(::openat(dir.get(), parts.back().c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd) {
    const int error = errno;
    fail(error, root / relative, error == ELOOP ? "leads out of " + root.string() + " (a symlink)" : "cannot open");
  }
  return fd;
}

UniqueFd open_within(const fs::path& path, const std::vector<fs::path>& roots, int flags, mode_t mode) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (ec) absolute = path.lexically_normal();
  for (const auto& root : roots)
    if (is_within(absolute, root)) return open_beneath(root, absolute.lexically_relative(root), flags, mode);
  // Reached through a symlink to the root (a working directory under /tmp -> /private/tmp):
  // resolved as it is now; whatever changes after, the open stays beneath the root.
  const fs::path real = fs::weakly_canonical(absolute, ec);
  if (!ec)
    for (const auto& root : roots)
      if (is_within(real, root)) return open_beneath(root, real.lexically_relative(root), flags, mode);
  std::string names;
  for (const auto& root : roots) names += (names.empty() ? "" : ", ") + root.string();
  fail(EXDEV, path, "outside " + (names.empty() ? std::string("every allowed root (none)") : names));
}

UniqueFd create_within(const fs::path& path, const fs::path& root) {
  // Not O_TRUNC: what is there is looked at before it is emptied.
  UniqueFd fd = open_within(path, {root}, O_WRONLY | O_CREAT | O_NOFOLLOW, 0666);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail(errno, path, "cannot create");
  if (!S_ISREG(st.st_mode)) fail(EINVAL, path, "not a regular file");
  if (st.st_nlink != 1) fail(EMLINK, path, "has other names (a hard link): not written through");
  if (::ftruncate(fd.get(), 0) != 0) fail(errno, path, "cannot empty");
  return fd;
}

void remove_within(const fs::path& path, const fs::path& root, const UniqueFd& file) noexcept {
  try {
    const fs::path normal = path.lexically_normal();
    if (!is_within(normal, root) || !file) return;
    const fs::path relative = normal.lexically_relative(root);
    const UniqueFd dir = relative.has_parent_path() ? open_beneath(root, relative.parent_path(), O_PATH | O_DIRECTORY)
                                                    : open_root(root);
    struct stat named {}, opened {};
    const std::string name = relative.filename().string();
    if (::fstatat(dir.get(), name.c_str(), &named, AT_SYMLINK_NOFOLLOW) != 0 || ::fstat(file.get(), &opened) != 0)
      return;
    if (named.st_dev == opened.st_dev && named.st_ino == opened.st_ino) ::unlinkat(dir.get(), name.c_str(), 0);
  } catch (const std::exception&) {
    // Nothing to remove where the directory cannot be opened beneath the root.
  }
}

}  // namespace fp
