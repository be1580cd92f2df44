#!/usr/bin/env bash
# Quick start: set up, build, and run every test (CI runs this). GPU tests skip themselves
# when no GPU is present; the reasons for every skip are printed at the end, and a skip for
# any other reason (a missing GStreamer plugin, say) fails the run (tools/check-skips.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/build.sh"
cd "$root/build"
status=0
ctest --output-on-failure --no-tests=error -j"$(nproc)" "$@" || status=$?
# Only the GPU may be missing: a test skipped for any other reason did not run, and fails CI.
"$root/tools/check-skips.sh" . || status=1
exit $status
