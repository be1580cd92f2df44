// Opening a file beneath a directory so that nothing on the way leads out of it: the
// service checks a path when a stream is accepted and opens it later, and in between a
// name inside its root may have become a symlink to somewhere else. Opening beneath the
// root's directory fd makes the check hold at the moment of the open.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <vector>

#include "core/unique_fd.hpp"

namespace fp {

// Opens `relative` (a relative path without "..") beneath the directory `root` with
// open(2) `flags` (O_CLOEXEC added) and `mode` (with O_CREAT): a symlink on the way may not
// lead out of `root` and no /proc magic link is followed: openat2(2) with RESOLVE_BENEATH |
// RESOLVE_NO_MAGICLINKS, or open_beneath_by_components where the kernel (or a container's
// seccomp profile) has no openat2.
// Throws std::system_error naming the path (a way out: EXDEV or ELOOP).
UniqueFd open_beneath(const std::filesystem::path& root, const std::filesystem::path& relative, int flags,
                      mode_t mode = 0);

// The fallback: `relative` one component at a time from `root`, each with O_NOFOLLOW, so
// that any symlink on the way refuses (ELOOP; ENOTDIR for a directory component), even one
// that would stay inside. Public for its test.
UniqueFd open_beneath_by_components(const std::filesystem::path& root, const std::filesystem::path& relative,
                                    int flags, mode_t mode = 0);

// `path` (absolute, or relative to the working directory) opened beneath whichever of
// `roots` (canonical directories) holds it: lexically, or once its symlinks are resolved as
// they are now. Throws std::system_error EXDEV when none holds it, or as open_beneath.
UniqueFd open_within(const std::filesystem::path& path, const std::vector<std::filesystem::path>& roots, int flags,
                     mode_t mode = 0);

// An output file: `path` created beneath `root` (or the regular file there opened), then
// emptied, for writing. Anything but a regular file of one link is refused (a hard link to
// another file would be emptied and written through). Throws std::system_error.
UniqueFd create_within(const std::filesystem::path& path, const std::filesystem::path& root);

// Removes the name `path` beneath `root` if it is still the file `file` is open on (an
// output that failed before anything was written), and never what a symlink there points to.
// Quietly does nothing otherwise.
void remove_within(const std::filesystem::path& path, const std::filesystem::path& root, const UniqueFd& file) noexcept;

}  // namespace fp
