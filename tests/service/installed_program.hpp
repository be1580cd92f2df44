// Programs from outside this project that some service tests run: promtool and prometheus
// (Debian package prometheus). CI installs them (tools/setup.sh); the GPU machine, where
// tools/gpu-check.sh runs the whole ctest, does not have them, and there such a test skips,
// naming the program and its package, instead of failing for a reason that is no bug.
//
// CI still refuses that skip: tools/check-skips.sh (run after every ctest of .ci/run) allows
// only the reasons a CI machine may have (no GPU, ...), so "promtool is not installed" there
// fails the step, just as a failing test would. Keep these reasons out of its allowed list.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <string>

namespace fp::test {

// True when `program` is an executable file in one of $PATH's directories.
inline bool installed(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (!dir.empty() && ::access((dir + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

}  // namespace fp::test

// The first statement of a test that needs `program`: skips the whole test when it is absent.
// First, before any check: a skip after checks (or after one failed) reports a test that
// checked things as one that did not run; tools/check-skips.sh refuses a skip that follows a
// failed check. A test whose other checks should run without `program` is split in two.
#define SKIP_UNLESS_INSTALLED(program, package)                                                   \
  if (!::fp::test::installed(program))                                                            \
  GTEST_SKIP() << program << " is not installed (Debian package " << package << "; tools/setup.sh)"
