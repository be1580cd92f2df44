#!/usr/bin/env bash
# Quick start: set up, build, and run every test (CI runs this). GPU tests skip themselves
# when no GPU is present; the reasons for every skip are printed at the end, and a skip for
# any other reason (a missing GStreamer plugin, say) fails the run (tools/check-skips.sh).
# The seconds it spent building and testing go to build/ci-times (.ci/run's summary).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
start=$(date +%s)
"$root/tools/setup.sh"
# The image and package tests start from a Debian root filesystem that mmdebstrap downloads
# (tests/image/debian_base.sh, cached in the build tree; mostly waiting on the network): it
# is fetched while the build compiles. Its failure is the tests' to report.
prefetch=""
if [ "$(id -u)" = 0 ] && command -v mmdebstrap >/dev/null; then
  mkdir -p "$root/build"
  "$root/tests/image/debian_base.sh" "$root/build/image-rootfs" >"$root/build/debian-base.log" 2>&1 &
  prefetch=$!
fi
"$root/tools/build.sh"
built=$(date +%s)
[ -z "$prefetch" ] || wait "$prefetch" || true
cd "$root/build"
status=0
# Two tests a core: many wait on sockets, timers and child processes rather than compute. On
# CI's two cores -j4 ran the suite in 225 s (165% CPU) where -j2 took 375 s, every test passing.
ctest --output-on-failure --no-tests=error -j"${FRAMEPIPE_CTEST_JOBS:-$((2 * $(nproc)))}" "$@" || status=$?
# Only the GPU may be missing: a test skipped for any other reason did not run, and fails CI.
"$root/tools/check-skips.sh" . || status=1
echo "build $((built - start)) tests $(($(date +%s) - built))" >ci-times
exit $status
