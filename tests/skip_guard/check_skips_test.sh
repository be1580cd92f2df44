#!/usr/bin/env bash
# tools/check-skips.sh on recorded ctest logs (logs/: record_logs.sh made them with real ctest
# runs; real_whole_suite_one_worker.log is this project's own): each case gives it one log as
# a build folder's LastTest.log and checks its exit status and what it names.
#   check_skips_test.sh CHECK_SKIPS LOGS_DIR
# A failure says which case, what was expected and what check-skips printed.
set -euo pipefail
check_skips=$1 logs=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect CASE LOG STATUS [--allow REGEX] [--says TEXT]... [--not TEXT]...: check-skips on LOG
# exits STATUS, and its output holds each --says TEXT and no --not TEXT (fixed strings).
expect() {
  local case=$1 log=$2 want=$3 allow=()
  shift 3
  local says=() nots=()
  while [ $# -gt 0 ]; do
    case $1 in
      --allow) allow=("$2") ;;
      --says) says+=("$2") ;;
      --not) nots+=("$2") ;;
      *) echo "check_skips_test: bad argument $1" >&2; exit 2 ;;
    esac
    shift 2
  done
  local build=$work/$case
  mkdir -p "$build/Testing/Temporary"
  cp "$logs/$log" "$build/Testing/Temporary/LastTest.log"
  local got=0 out
  out=$("$check_skips" "$build" "${allow[@]}" 2>&1) || got=$?
  local problems=()
  [ "$got" -eq "$want" ] || problems+=("exit status $got, not $want")
  local text
  for text in "${says[@]}"; do grep -qF -- "$text" <<<"$out" || problems+=("it does not say '$text'"); done
  for text in "${nots[@]}"; do ! grep -qF -- "$text" <<<"$out" || problems+=("it says '$text'"); done
  if [ ${#problems[@]} -eq 0 ]; then
    echo "ok: $case"
  else
    failures=$((failures + 1))
    echo "check_skips_test: FAILED: $case ($log): $(printf '%s; ' "${problems[@]}")check-skips printed:" >&2
    sed 's/^/    /' <<<"$out" >&2
  fi
}

gstreamer="GStreamer's RTSP server cannot run: python3-gi or the plugins are missing"
no_gpu="no CUDA device present (framepipe --version lists none, or CUDA not built)"

# Nothing skipped: a single gtest, a whole suite and a script, all passed.
expect clean-log clean.log 0 --not "Skipped tests"
# Many gtests in one entry, which ctest logs "Test Passed.": a gtest in it skipped for a
# reason CI must not have fails, naming the entry, the gtest and the reason.
expect whole-suite-gstreamer-skip whole_suite_gstreamer_skip.log 1 \
  --says "WholeSuite.GStreamerMissing (gtest Recorded.SkipsWhenTold): $gstreamer"
# The same entry with the one allowed reason, a missing GPU: listed, and passes.
expect whole-suite-no-gpu-skip whole_suite_no_gpu_skip.log 0 --says "1 $no_gpu"
# This project's own: the one-worker rerun of the CPU suite, passed, with a gtest skipped
# for "one worker" in it (the hole that let a whole-suite entry hide a skip).
expect real-whole-suite-one-worker real_whole_suite_one_worker.log 1 \
  --says "Parallel.WholeSuiteWith1Workers (gtest Parallel.UsesSeveralThreads): one worker"
# A gtest that failed a check and then called GTEST_SKIP: gtest reports it FAILED (so ctest
# fails the entry), and it is no skip here; its neighbour's allowed skip is, with its own
# reason (not the failed test's).
expect whole-suite-fail-then-skip whole_suite_fail_then_skip.log 0 \
  --says "1 no CUDA device present (CUDA not built)" --not "GStreamer" --not "Recorded.FailsThenSkipsWhenTold"
# One gtest an entry (gtest_discover_tests): an allowed skip passes, another reason fails.
expect single-gtest-no-gpu-skip single_gtest_no_gpu_skip.log 0 --says "1 $no_gpu"
expect single-gtest-x264-skip single_gtest_x264_skip.log 1 \
  --says "Single.Recorded.SkipsWhenTold (gtest Recorded.SkipsWhenTold): this FFmpeg has no libx264"
# The sanitizer steps' extra allowed reason: refused without it, passed with it.
expect sanitizer-reason-refused single_gtest_sanitizer_skip.log 1 \
  --says "a memory limit cannot be tested under a sanitizer"
expect sanitizer-reason-allowed single_gtest_sanitizer_skip.log 0 \
  --allow '^a memory limit cannot be tested under a sanitizer'
# A script that exits 77 (SKIP_RETURN_CODE), which ctest logs "Test Passed.": its "Skipped:"
# line shows the skip, and a missing program is no allowed reason.
expect script-promtool-skip script_promtool_skip.log 1 \
  --says "script_skips_for_promtool: promtool is not installed"
# A script that printed a failed check and then exited 77: refused even though the reason
# given is the allowed one.
expect script-fail-then-skip script_fail_then_skip.log 1 \
  --says "skipped after a check of theirs had failed" --says "script_fails_then_skips: no CUDA device present"

[ "$failures" -eq 0 ] || { echo "check_skips_test: FAILED: $failures case(s)" >&2; exit 1; }
echo "check_skips_test: every case as expected"
