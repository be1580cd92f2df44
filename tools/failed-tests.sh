#!/usr/bin/env bash
# Prints the tests that failed in the last ctest run of BUILD_DIR, each with the last lines
# of its output. .ci/run calls it at the very end, after the summary: a CI log is often read
# only from its tail, and there a failed step must say which test failed and why (ctest's own
# --output-on-failure text sits hundreds of lines further up, among the other steps).
#   tools/failed-tests.sh BUILD_DIR [LINES|all]      (LINES of output a test, default 40)
# It reads LastTest.log, not LastTestsFailed.log: ctest leaves the latter in place after a
# later run in which nothing failed.
set -euo pipefail
dir=$1
lines=${2:-40}
log=$dir/Testing/Temporary/LastTest.log
[ -f "$log" ] || { echo "no ctest log in $dir (look above for a build error)"; exit 0; }
# One block a test: "N/M Testing: NAME", its output between "Output:" and "<end of output>",
# "Test time = ...", then "Test Passed." or "Test Failed.".
awk -v lines="$lines" '
  /^[0-9]+\/[0-9]+ Testing: / { name = $3; n = 0; inside = 0; next }
  /^Output:$/ { inside = 1; next }
  /^<end of output>$/ { inside = 0; next }
  inside && !/^-+$/ { out[n++] = $0; next }
  /^Test time = / { out[n++] = $0; next }
  /^Test Failed\.$/ {
    failed++
    if (lines == "all") { printf "---- %s failed; its output:\n", name; from = 0 }
    else { printf "---- %s failed (last %d lines of its output)\n", name, lines; from = (n > lines + 0 ? n - lines : 0) }
    for (i = from; i < n; i++) print out[i]
  }
  END { if (!failed) print "no test failed in the last ctest run (look above for a build error or a skip check)" }
' "$log"
