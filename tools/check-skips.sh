#!/usr/bin/env bash
# Lists the tests that skipped themselves in the last ctest run of BUILD_DIR, with why, and
# fails when one skipped for a reason that this machine should not have: on a CI machine only
# the GPU is missing, so a test skipped because GStreamer, an FFmpeg codec, /dev/full or a
# mount is missing is a test that did not run, and would otherwise pass unseen.
#   tools/check-skips.sh BUILD_DIR [ALLOWED_REGEX]
# ALLOWED_REGEX (extended, on the reason) adds reasons that are expected where it is called
# (the sanitizer builds: limits that cannot be measured under a sanitizer).
set -euo pipefail
log=$1/Testing/Temporary/LastTest.log
allowed='^no CUDA device present|^one GPU: spreading streams needs two'
[ -n "${2:-}" ] && allowed="$allowed|$2"
[ -f "$log" ] || { echo "check-skips: no ctest log at $log" >&2; exit 1; }
# One line per skipped test: NAME<TAB>REASON. gtest prints the reason under "FILE:LINE:
# Skipped"; a plain test that skips by exit code (SKIP_RETURN_CODE 77: the promtool, browser
# and deploy tests, via tests/service/run_installed.sh or on their own) prints "Skipped: REASON", and ctest's log
# calls that test passed, so its line is what shows the skip here.
# This is what makes CI refuse a test that did not run because a program or package is
# missing ("promtool is not installed", "node is not installed", "kubectl is not installed",
# "kubernetes-models is not installed in tests/deploy/node_modules", "mmdebstrap is not
# installed", the image test's "needs root"): those tests skip on the GPU machine, which lacks
# them, but here no such reason is allowed — keep them out of `allowed`.
skips=$(awk '
  /^[0-9]+\/[0-9]+ Testing: / { name = $3; reason = "" }
  /: Skipped$/ { if ((getline line) > 0 && reason == "") reason = line }
  /^Skip regular expression found in output/ { print name "\t" (reason == "" ? "(no reason given)" : reason) }
  /^Skipped: / { print name "\t" substr($0, 10) }
' "$log")
[ -n "$skips" ] || exit 0
echo "Skipped tests and why:"
cut -f2 <<<"$skips" | sort | uniq -c
unexpected=$(awk -F'\t' -v allowed="$allowed" '$2 !~ allowed' <<<"$skips")
if [ -n "$unexpected" ]; then
  echo "check-skips: these tests skipped for a reason other than a missing GPU (they did not run):" >&2
  sed 's/^/  /' <<<"$unexpected" >&2
  exit 1
fi
