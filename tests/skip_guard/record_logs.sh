#!/usr/bin/env bash
# Records the ctest logs that check_skips_test.sh gives tools/check-skips.sh, from real ctest
# runs of a scratch project: a gtest binary whose tests pass, skip or fail as the environment
# tells them, registered both ways this project registers tests (gtest_discover_tests: one
# entry a gtest; add_test of the whole binary: many gtests in one entry), and shell tests that
# exit 77 (SKIP_RETURN_CODE) as the script tests do. Run it again when ctest or GoogleTest
# change their output (it writes logs/*.log; real_whole_suite_one_worker.log is not its own:
# that is this project's Parallel.WholeSuiteWith1Workers as ctest logged it before the
# Parallel.UsesSeveralThreads skip left that entry).
#   tests/skip_guard/record_logs.sh
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cat >"$scratch/recorded.cpp" <<'CPP'
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

static std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}
TEST(Recorded, Passes) { EXPECT_EQ(1 + 1, 2); }
TEST(Recorded, SkipsWhenTold) {
  if (!env("RECORDED_SKIP").empty()) GTEST_SKIP() << env("RECORDED_SKIP");
  EXPECT_EQ(2 + 2, 4);
}
TEST(Recorded, FailsThenSkipsWhenTold) {
  if (env("RECORDED_FAIL_THEN_SKIP").empty()) return;
  EXPECT_EQ(1 + 1, 3) << "a check that failed before the skip";
  GTEST_SKIP() << env("RECORDED_FAIL_THEN_SKIP");
}
CPP
cat >"$scratch/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.22)
project(recorded CXX)
find_package(GTest REQUIRED)
include(GoogleTest)
enable_testing()
add_executable(recorded recorded.cpp)
target_link_libraries(recorded GTest::gtest GTest::gtest_main)
# One entry a gtest, as framepipe_add_test registers them.
gtest_discover_tests(recorded TEST_PREFIX "Single." PROPERTIES ENVIRONMENT "RECORDED_SKIP=$ENV{RECORDED_SKIP}")
# The whole binary in one entry, as tests/cpu's Parallel.WholeSuiteWith*Workers.
function(whole name variable value)
  add_test(NAME ${name} COMMAND recorded)
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${variable}=${value}")
endfunction()
whole(WholeSuite.Clean RECORDED_SKIP "")
whole(WholeSuite.GStreamerMissing RECORDED_SKIP "GStreamer's RTSP server cannot run: python3-gi or the plugins are missing")
whole(WholeSuite.NoGpu RECORDED_SKIP "no CUDA device present (framepipe --version lists none, or CUDA not built)")
add_test(NAME WholeSuite.FailThenSkipAndNoGpu COMMAND recorded)
set_tests_properties(WholeSuite.FailThenSkipAndNoGpu PROPERTIES ENVIRONMENT
  "RECORDED_SKIP=no CUDA device present (CUDA not built);RECORDED_FAIL_THEN_SKIP=GStreamer's RTSP server cannot run")
# Script tests: exit 77 is a skip (SKIP_RETURN_CODE), as run_installed.sh and the image test.
add_test(NAME script_passes COMMAND sh -c "echo 'recorded test: every check passed'")
add_test(NAME script_skips_for_promtool COMMAND sh -c
  "echo 'Skipped: promtool is not installed (Debian package prometheus, tools/setup.sh)'; exit 77")
add_test(NAME script_fails_then_skips COMMAND sh -c
  "echo 'recorded test: checking the pipeline'; echo 'recorded test: FAILED: the pipeline did not write fused.mkv' >&2; echo 'Skipped: no CUDA device present'; exit 77")
set_tests_properties(script_passes script_skips_for_promtool script_fails_then_skips PROPERTIES SKIP_RETURN_CODE 77)
CMAKE
# build/ skips nothing in its single entries; build-skip/ skips them for RECORDED_SKIP.
configure() { RECORDED_SKIP=$2 cmake -S "$scratch" -B "$scratch/$1" >/dev/null && cmake --build "$scratch/$1" >/dev/null; }
configure build ""
configure build-gpu "no CUDA device present (framepipe --version lists none, or CUDA not built)"
configure build-x264 "this FFmpeg has no libx264"
configure build-sanitizer "a memory limit cannot be tested under a sanitizer"
# record NAME BUILD REGEX: the log of a ctest run of the entries REGEX selects, as logs/NAME.log
# (the scratch folder's path written /scratch: the rest as ctest wrote it).
record() {
  ctest --test-dir "$scratch/$2" -R "$3" >/dev/null || true
  sed "s|$scratch|/scratch|g" "$scratch/$2/Testing/Temporary/LastTest.log" >"$here/logs/$1.log"
}
record clean build '^(Single\.Recorded\.Passes|Single\.Recorded\.SkipsWhenTold|WholeSuite\.Clean|script_passes)$'
record whole_suite_gstreamer_skip build '^WholeSuite\.GStreamerMissing$'
record whole_suite_no_gpu_skip build '^WholeSuite\.NoGpu$'
record whole_suite_fail_then_skip build '^WholeSuite\.FailThenSkipAndNoGpu$'
record single_gtest_no_gpu_skip build-gpu '^Single\.Recorded\.SkipsWhenTold$'
record single_gtest_x264_skip build-x264 '^Single\.Recorded\.SkipsWhenTold$'
record single_gtest_sanitizer_skip build-sanitizer '^Single\.Recorded\.SkipsWhenTold$'
record script_promtool_skip build '^script_skips_for_promtool$'
record script_fail_then_skip build '^script_fails_then_skips$'
echo "recorded $(ls "$here"/logs/*.log | wc -l) logs in $here/logs"
