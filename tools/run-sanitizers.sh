#!/usr/bin/env bash
# Builds framepipe with a sanitizer (CMake presets in CMakePresets.json: asan =
# AddressSanitizer + UndefinedBehaviorSanitizer with Clang 16, which is also the build of the
# fuzz targets (cmake/fuzz.cmake: one compile for both CI steps), tsan = ThreadSanitizer
# with GCC; CPU backend, since
# the GPU half is compute-sanitizer on a GPU machine, tools/gpu-check.sh) and runs the whole
# test suite under it. Every report halts the process that made it, so any finding fails a
# test and this script exits non-zero. The e2e tests run the sanitized framepipe binary too
# (the options reach it through the environment). FRAMEPIPE_SMALL_SIZES=1 shrinks the
# heaviest tests' frames (the same code paths, fewer pixels) to keep CI within its time.
# For the same reason the presets compile ASan+UBSan at -O1 and TSan at -O2, both with -g1
# (line tables: reports keep file:line): -O1 -g1 compiles in about half the time of -O2 -g
# on CI's two cores, and -O1 is the level AddressSanitizer's documentation suggests. UBSan
# leaves out its vptr check (the dynamic type of a cast): with it, a test file heavy in
# templates (JSON, regex, gtest) took 110 s to compile, without it 76 s (ASan alone: 56 s).
# It also leaves out `null` and `alignment`, which instrument every member access: the
# streams library's unity file took 72 s with them, 43 s without (ASan alone: 41 s). A null
# pointer read or written still stops the test (AddressSanitizer reports the SEGV), and a
# misaligned access is no fault on x86-64 except for aligned vector loads, which fault too;
# the other checks (signed overflow, shifts, bounds, enums, bools, float casts...) stay.
#
#
# A test that fails without a sanitizer's report is run once more, alone (ctest
# --rerun-failed): these builds run many times slower than release, so a test with a time
# bound can miss it on a busy machine where nothing is wrong. A test that then passes does not
# fail the step, but it is named as flaky, with its first output, in
# build-PRESET/flaky-tests.txt, which .ci/run prints at the end of its log. A failure with a
# sanitizer's report (AddressSanitizer, LeakSanitizer, ThreadSanitizer, UBSan's "runtime
# error:") is never run again: it fails the step.
#
#   tools/run-sanitizers.sh [asan|tsan|all]      (default all)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
which=${1:-all}
case $which in
  all) presets=(asan tsan) ;;
  asan | tsan) presets=("$which") ;;
  *) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;;
esac
# The asan preset is Clang's (it is the fuzz build too, cmake/fuzz.cmake): --fuzz installs it.
if [ "$which" = tsan ]; then "$root/tools/setup.sh"; else "$root/tools/setup.sh" --fuzz; fi
# What a sanitizer prints when it finds something, in a test's own output or in that of a
# framepipe process the test ran (the tests print a failed child's output).
sanitizer_report='ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|runtime error:'
# The tests that drive framepipe as a child process (CHILD_PROCESS in tests/CMakeLists.txt:
# the service, e2e and CLI tests) are compiled once, in the release folder, and run here
# against the sanitized framepipe: compiling them again under each sanitizer cost CI minutes
# for code (curl, JSON, gtest assertions) that is not what is under test. Where there is no
# release folder configured with its tests (build/, tools/build.sh), they are compiled here
# as the others.
borrow=""
if [ -f "$root/build/CMakeCache.txt" ] && ! grep -qE '^FRAMEPIPE_BUILD_TESTS:BOOL=(OFF|0|FALSE|NO)$' "$root/build/CMakeCache.txt"; then
  borrowed_start=$(date +%s)
  cmake -S "$root" -B "$root/build" >/dev/null  # its configuration as it was; the target is new to an older one
  cmake --build "$root/build" -j"$(nproc)" --target framepipe_child_process_tests
  borrow="$root/build"
  echo "sanitizers: the child-process tests of build/ are up to date ($(($(date +%s) - borrowed_start)) s)"
fi
status=0
for preset in "${presets[@]}"; do
  start=$(date +%s)
  "$root/tools/configure-preset.sh" "$preset" -DFRAMEPIPE_CHILD_PROCESS_TESTS_FROM="$borrow" >/dev/null
  cmake --build --preset "$preset" -j"$(nproc)"
  built=$(date +%s)
  rc=0
  skips=0
  rm -f "build-$preset/flaky-tests.txt"
  # Two tests a core, as tools/run-tests.sh: TSan's suite took 475 s at -j4 on CI's two cores,
  # 523 s at -j2 (it computes more than it waits there: 187% CPU).
  ctest --preset "$preset" --no-tests=error -j"${FRAMEPIPE_CTEST_JOBS:-$((2 * $(nproc)))}" || rc=$?
  # Before any rerun: the skip check reads the whole run's log, which a rerun replaces; and
  # after one (below), on the rerun's log: a test that failed, then skipped when run again,
  # did not pass.
  allowed_skips='^a memory limit cannot be tested under a sanitizer|^ThreadSanitizer runs this stage hundreds of times slower'
  "$root/tools/check-skips.sh" "build-$preset" "$allowed_skips" || skips=1
  if [ $rc -ne 0 ]; then
    first=$("$root/tools/failed-tests.sh" "build-$preset" all)
    if grep -qE "$sanitizer_report" <<<"$first"; then
      echo "sanitizers: $preset: a sanitizer reported an error: not run again"
    elif ctest --preset "$preset" --no-tests=error --rerun-failed; then
      rc=0
      "$root/tools/check-skips.sh" "build-$preset" "$allowed_skips" || skips=1
      { echo "$preset: failed, then passed when run again alone; the first try's output:"
        tail -n 200 <<<"$first"; } >"build-$preset/flaky-tests.txt"
      echo "sanitizers: $preset: FLAKY: $(grep -c '^---- ' <<<"$first") test(s) failed, then passed when run again; see build-$preset/flaky-tests.txt"
    fi
  fi
  [ $skips -eq 0 ] || rc=1
  echo "sanitizers: $preset: build $((built - start)) s, tests $(($(date +%s) - built)) s, ctest exit $rc"
  echo "build $((built - start)) tests $(($(date +%s) - built))" >"build-$preset/ci-times"
  [ $rc -eq 0 ] || status=1
done
exit $status
