#!/usr/bin/env bash
# Builds framepipe with a sanitizer (CMake presets in CMakePresets.json: asan =
# AddressSanitizer + UndefinedBehaviorSanitizer, tsan = ThreadSanitizer; CPU backend, since
# the GPU half is compute-sanitizer on a GPU machine, tools/gpu-check.sh) and runs the whole
# test suite under it. Every report halts the process that made it, so any finding fails a
# test and this script exits non-zero. The e2e tests run the sanitized framepipe binary too
# (the options reach it through the environment). FRAMEPIPE_SMALL_SIZES=1 shrinks the
# heaviest tests' frames (the same code paths, fewer pixels) to keep CI within its time.
# For the same reason the presets compile ASan+UBSan at -O1 and TSan at -O2, both with -g1
# (line tables: reports keep file:line): -O1 -g1 compiles in about half the time of -O2 -g
# on CI's two cores, and -O1 is the level AddressSanitizer's documentation suggests.
#
#   tools/run-sanitizers.sh [asan|tsan|all]      (default all)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
"$root/tools/setup.sh"
which=${1:-all}
case $which in
  all) presets=(asan tsan) ;;
  asan | tsan) presets=("$which") ;;
  *) echo "usage: $0 [asan|tsan|all]" >&2; exit 2 ;;
esac
status=0
for preset in "${presets[@]}"; do
  start=$(date +%s)
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j"$(nproc)"
  built=$(date +%s)
  rc=0
  ctest --preset "$preset" -j"$(nproc)" || rc=$?
  "$root/tools/check-skips.sh" "build-$preset" '^a memory limit cannot be tested under a sanitizer' || rc=1
  echo "sanitizers: $preset: build $((built - start)) s, tests $(($(date +%s) - built)) s, ctest exit $rc"
  [ $rc -eq 0 ] || status=1
done
exit $status
