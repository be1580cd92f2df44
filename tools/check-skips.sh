#!/usr/bin/env bash
# Lists the tests that skipped themselves in the last ctest run of BUILD_DIR, with why, and
# fails when one skipped for a reason that this machine should not have: on a CI machine only
# the GPU is missing, so a test skipped because GStreamer, an FFmpeg codec, /dev/full or a
# mount is missing is a test that did not run, and would otherwise pass unseen. It fails too
# when a test skipped after one of its checks had failed: a skip comes before any check.
#   tools/check-skips.sh BUILD_DIR [ALLOWED_REGEX]
# ALLOWED_REGEX (extended, on the reason) adds reasons that are expected where it is called
# (the sanitizer builds: limits that cannot be measured under a sanitizer).
# tests/skip_guard runs it on recorded ctest logs: a change here is checked there.
set -euo pipefail
log=$1/Testing/Temporary/LastTest.log
allowed='^no CUDA device present|^one GPU: spreading streams needs two'
[ -n "${2:-}" ] && allowed="$allowed|$2"
[ -f "$log" ] || { echo "check-skips: no ctest log at $log" >&2; exit 1; }
# LastTest.log holds each test's whole output, passed or not: ctest writes it there before it
# cuts a passed test's output to CTEST_CUSTOM_MAXIMUM_PASSED_TEST_OUTPUT_SIZE (1 KiB) for its
# dashboard results (cmCTestRunTest::WriteLogOutputTop; seen with ctest 3.25: the whole suite's
# 7 KiB in one entry). So every skip line of every test is in it, whatever ctest called the test.
#
# Skips are read from the tests' own output, in every entry:
#   gtest      "FILE:LINE: Skipped", the reason on the next line, then "[  SKIPPED ] Suite.Name
#              (N ms)". Found in every entry, not only where ctest reports a skip: an entry that
#              runs many gtests (Parallel.WholeSuiteWith*Workers, Nlmeans.WithCpuFeatures_*: the
#              plain add_test of a gtest binary) is "Passed" when a gtest in it skipped.
#   a script   "Skipped: REASON", then exit 77 (SKIP_RETURN_CODE: the promtool, browser, deploy
#              and image tests, via tests/service/run_installed.sh or on their own). ctest's log
#              calls such a test passed, so this line is all that shows the skip: a script
#              prints it before it exits 77, and never exits 77 once it has begun to check.
# Failed checks, which a skip must not follow:
#   gtest      "FILE:LINE: Failure" and "[  FAILED  ]", counted within the one gtest (since
#              its "[ RUN      ]"). gtest itself reports a test that failed and then skipped as
#              FAILED (no "[  SKIPPED ]" line, the entry fails), so this only backs that up.
#   a script   a line "NAME: FAILED..." (`image test: FAILED: ...`, `status_page_test: FAILED`),
#              and the gtest lines above, anywhere in the entry before its "Skipped:" line.
# Missing programs and packages ("promtool is not installed", "node is not installed",
# "kubectl is not installed", "kubernetes-models is not installed in tests/deploy/node_modules",
# "mmdebstrap is not installed", the image test's "needs root") are no allowed reason: those
# tests skip on the GPU machine, which lacks them, but CI has them — keep them out of `allowed`.
#
# One line per skip: ENTRY<TAB>GTEST (or -)<TAB>REASON<TAB>1 when a check had failed before it.
skips=$(awk '
  function emit(gtest, why, failed_before) {
    print entry "\t" gtest "\t" (why == "" ? "(no reason given)" : why) "\t" failed_before
    skips_in_entry++
  }
  /^[0-9]+\/[0-9]+ Testing: / {
    entry = substr($0, index($0, "Testing: ") + 9); output = 0; skips_in_entry = 0
    test_failed = 0; entry_failed = 0; reason = ""
    next
  }
  !output && /^Output:$/ { output = 1; separator = 1; next }
  output && separator && /^-+$/ { separator = 0; next }
  output && /^<end of output>$/ { output = 0; next }
  output {
    separator = 0
    if (/^\[ RUN      \] /) { test_failed = 0; reason = ""; next }
    if (/:[0-9]+: Failure$/ || /^\[  FAILED  \] / || /^[^:]+: FAILED([: ]|$)/) { test_failed = 1; entry_failed = 1 }
    if (/:[0-9]+: Skipped$/) { if ((getline line) > 0 && reason == "") reason = line; next }
    if (/^\[  SKIPPED \] .* \([0-9]+ ms\)$/) {
      gtest = substr($0, 14); sub(/ \([0-9]+ ms\)$/, "", gtest)
      emit(gtest, reason, test_failed); reason = ""
      next
    }
    if (/^Skipped: /) emit("-", substr($0, 10), entry_failed)
    next
  }
  # ctest counted it skipped by its SKIP_REGULAR_EXPRESSION, yet no skip line said which or why.
  /^Skip regular expression found in output/ { if (skips_in_entry == 0) emit("-", "", entry_failed) }
' "$log")
[ -n "$skips" ] || exit 0
echo "Skipped tests and why:"
cut -f3 <<<"$skips" | sort | uniq -c
# ENTRY, or ENTRY (gtest NAME) where the entry ran more gtests than the one that skipped.
named='{ print "  " $1 ($2 == "-" || $2 == $1 ? "" : " (gtest " $2 ")") ": " $3 }'
status=0
after_failure=$(awk -F'\t' '$4 == 1' <<<"$skips")
if [ -n "$after_failure" ]; then
  echo "check-skips: these tests skipped after a check of theirs had failed (a test skips before it checks anything):" >&2
  awk -F'\t' "$named" <<<"$after_failure" >&2
  status=1
fi
unexpected=$(awk -F'\t' -v allowed="$allowed" '$4 != 1 && $3 !~ allowed' <<<"$skips")
if [ -n "$unexpected" ]; then
  echo "check-skips: these tests skipped for a reason other than a missing GPU (they did not run):" >&2
  awk -F'\t' "$named" <<<"$unexpected" >&2
  status=1
fi
exit $status
