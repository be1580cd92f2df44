#!/usr/bin/env bash
# Verifies framepipe on a GPU machine (the project's H100, through the device tool):
# configure with CUDA on, build, run every test (GPU tests included), run the GPU tests and
# a multi-slot GPU pipeline (and four streams of it in one process, from testsrc and from
# NVDEC) under compute-sanitizer
# memcheck, racecheck and synccheck, run
# the default pipeline for its throughput, and the benchmark. Exits non-zero when the build,
# any test, any sanitizer, any pipeline run or the benchmark fails.
#
# Needs .gpudeps/ (../shared/tools/build-gpu-deps, then tools/gpu-service-deps.sh for what
# `framepipe serve` links; both run HERE, the GPU machine has no package manager) carried
# along. Logs go to build-gpu/logs,
# the main ones are copied to $OUT when it is set (the device tool returns at most 8 files),
# and a summary goes to stdout. The device copy has no .git: pass the commit as
# FRAMEPIPE_COMMIT=$(git describe --always --dirty) in the command.
#
# Environment: STEPS (default "tests sanitizers pipelines bench": any subset, empty to build only, so that a long
# check can be split over several calls of one warm machine; with a fresh build the whole
# check takes longer than the device tool's 10 minutes a call: run "tests" first, then
# "sanitizers", then "pipelines bench"), SANITIZER_TOOLS (default
# "memcheck racecheck synccheck"), SANITIZER_JOBS, SANITIZER_TIMEOUT (seconds per process),
# SANITIZER_MATCH (an extended regex on "binary Suite.Test": only the GPU tests it matches
# run under the tools, e.g. the tests of what a change touched; the pipeline runs always do),
# NVDEC_TOOLS (default "memcheck synccheck": the tools the 4-stream NVDEC run goes under),
# NVDEC_REPEAT (default 1: how many times it runs under each) and BENCH_BOUNDS (default auto:
# the bench's --bounds; "estimate" leaves out Nsight Compute's pass over every kernel).
# Extra arguments go to ctest (e.g. -R GpuExecutor).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
logs=$root/build-gpu/logs
steps=" ${STEPS-tests sanitizers pipelines bench} "
tools=${SANITIZER_TOOLS:-memcheck racecheck synccheck}
status=0
failed() {  # what
  echo "FAILED: $1"
  status=1
}
# NVDEC's driver runs a kernel of its own when FFmpeg maps a decoded picture, which racecheck
# cannot instrument: it reports "failure to track a kernel launch" and counts it as an error
# (exit 3) although it found no race. Such a run counts as clean when that is its only error:
# no race reported, in any of our kernels.
only_untracked_driver_launch() {  # tool rc log
  [ "$1" = racecheck ] && [ "$2" = 3 ] && grep -q "failure to track a kernel launch" "$3" &&
    ! grep -q "Race reported" "$3" && grep -q "RACECHECK SUMMARY: 1 hazard displayed (1 error" "$3"
}
export -f only_untracked_driver_launch
# Runs a command under compute-sanitizer, bounded by SANITIZER_TIMEOUT (exit 124 when it runs
# out). A process still running 15 s before its bound gets every thread's stack appended to
# its log (cuda-gdb attaches: the machine has no gdb), so that a hang shows where it waits.
sanitized() {  # log tool command...
  local log=$1 tool=$2 limit=${SANITIZER_TIMEOUT:-300}
  shift 2
  timeout "$limit" compute-sanitizer --tool "$tool" --error-exitcode 3 "$@" >"$log" 2>&1 &
  local pid=$!
  (
    sleep $((limit > 30 ? limit - 15 : limit / 2))
    descendants() { local c; for c in $(ps -o pid= --ppid "$1"); do echo "$c"; descendants "$c"; done; }
    for p in $(descendants "$pid"); do
      case "$(cat "/proc/$p/comm" 2>/dev/null)" in compute-sanitiz* | timeout | "") continue ;; esac
      echo "==== still running near the timeout: stacks of pid $p ($(tr '\0' ' ' <"/proc/$p/cmdline" | cut -c1-200))"
      timeout 60 cuda-gdb -batch -nx -p "$p" -ex 'thread apply all bt' 2>&1 | grep -vE '^\[New (LWP|Thread)'
    done >>"$log.stacks" 2>&1
  ) &
  local watchdog=$!
  wait "$pid"
  local rc=$?
  kill "$watchdog" 2>/dev/null
  wait "$watchdog" 2>/dev/null
  [ -s "$log.stacks" ] && cat "$log.stacks" >>"$log"
  rm -f "$log.stacks"
  return $rc
}
export -f sanitized
# On every exit: the logs worth reading, as few files as the device tool takes back.
keep_logs() {
  [ -n "${OUT:-}" ] || return 0
  cat "$logs"/pipeline-*.log >"$logs/pipelines.log" 2>/dev/null
  cat "$logs"/sanitizer-*.log >"$logs/sanitizers.log" 2>/dev/null
  for f in ctest.log sanitizers.log pipelines.log pipeline-1920x1080.json bench.json bench.txt; do
    [ -f "$logs/$f" ] && cp "$logs/$f" "$OUT/"
  done
  return 0
}
trap keep_logs EXIT
mkdir -p "$logs"
# shellcheck disable=SC1091
source "$root/.gpudeps/env.sh"
cd "$root"
nvidia-smi -L

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if ! cmake -S . -B build-gpu "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DFRAMEPIPE_CUDA=ON \
    -DFRAMEPIPE_GIT_COMMIT="${FRAMEPIPE_COMMIT:-unknown}" >"$logs/configure.log" 2>&1; then
  tail -40 "$logs/configure.log"; exit 1
fi
if ! cmake --build build-gpu -j"$(nproc)" >"$logs/build.log" 2>&1; then
  grep -m40 -E 'error|Error' "$logs/build.log"; exit 1
fi
echo "build: ok"

if [[ $steps == *" tests "* ]]; then
  (cd build-gpu && ctest --output-on-failure --no-tests=error -j8 "$@") >"$logs/ctest.log" 2>&1
  rc=$?
  echo "ctest: exit $rc"
  grep -E 'tests passed|tests failed|Failed|\*\*\*' "$logs/ctest.log" | tail -20
  [ $rc -eq 0 ] || failed "ctest"
fi

# Sanitizers on small sizes (FRAMEPIPE_SMALL_SIZES), one process per test so that they run
# SANITIZER_JOBS at a time (racecheck is hundreds of times slower than the kernels), each
# bounded by SANITIZER_TIMEOUT (a timeout shows as exit 124 and fails the check). The kernel
# tests, the GPU executor's tests (several slots against the CPU) and the run monitor's
# frames on demand are covered.
if [[ $steps == *" sanitizers "* ]]; then
  sanitizer_dir=build-gpu/sanitizer
  rm -rf "$sanitizer_dir"; mkdir -p "$sanitizer_dir"
  list_tests() {  # binary filter
    FRAMEPIPE_SMALL_SIZES=1 "build-gpu/bin/$1" --gtest_list_tests --gtest_filter="$2" |
      awk -v bin="$1" '/^[^ ]/ { suite = $1 } /^  / { print bin, suite $1 }'
  }
  {
    list_tests test_cuda 'CudaDevice.*:LumaStatsCuda.*:MeanSmoothCuda.*:NlmeansCuda.*:PyramidFusionGpu.*:CudaThinning.*:SplitChromaCuda.*:CudaFrameSlots.*:TileCuda.*:-*1080p*:*4K*:*3840*'
    list_tests test_gpu_executor '*'
    # Frames on demand (a service's snapshot): downloads added to a slot's work, read after it.
    list_tests test_gpu_run_monitor '*'
    list_tests test_nvdec '*'
  } | grep -E "${SANITIZER_MATCH:-.}" >"$sanitizer_dir/tests"
  sanitize_one() {  # tool binary test
    local log
    log="$sanitizer_dir/$1-$2-$(echo "$3" | tr '/' '_').log"
    FRAMEPIPE_SMALL_SIZES=1 sanitized "$log" "$1" "build-gpu/bin/$2" --gtest_filter="$3"
    local rc=$?
    only_untracked_driver_launch "$1" "$rc" "$log" && rc=0
    # A test of host code alone (argument checks) launches nothing for the tool to watch.
    grep -q "terminated before first instrumented API call" "$log" && rc=host-only
    # A test that skips itself in small-sizes mode (one that needs a large frame) ran
    # nothing: listed apart, neither clean nor failed.
    [ "$rc" = 0 ] && grep -q "\[  SKIPPED \]" "$log" && rc=skipped
    echo "$rc $1 $2 $3" >>"$sanitizer_dir/results"
  }
  export -f sanitize_one; export sanitizer_dir
  for tool in $tools; do
    awk -v tool="$tool" '{ print tool, $1, $2 }' "$sanitizer_dir/tests" |
      xargs -r -P "${SANITIZER_JOBS:-12}" -L1 bash -c 'sanitize_one "$0" "$1" "$2"'
    cat "$sanitizer_dir"/"$tool"-*.log >"$logs/sanitizer-$tool.log"
    total=$(grep -c " $tool " "$sanitizer_dir/results")
    clean=$(grep -c "^0 $tool " "$sanitizer_dir/results")
    host_only=$(grep -c "^host-only $tool " "$sanitizer_dir/results")
    skipped=$(grep -c "^skipped $tool " "$sanitizer_dir/results")
    echo "compute-sanitizer $tool: $clean of $total tests clean, $host_only launch nothing, $skipped skip at small sizes;" \
      "$(grep -hE 'ERROR SUMMARY|RACECHECK SUMMARY' "$sanitizer_dir"/"$tool"-*.log | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
    grep -vE "^(0|host-only|skipped) " "$sanitizer_dir/results" | grep " $tool " |
      sed 's/^/  not clean (exit, tool, binary, test): /'
    [ $((clean + host_only + skipped)) = "$total" ] || failed "compute-sanitizer $tool on the GPU tests"
  done

  # The GPU executor itself: the default pipeline (all eight stage types) with three frames in
  # flight on a small input, under every tool.
  run_dir=build-gpu/pipeline-run
  mkdir -p "$run_dir"
  # An H.264 file for the NVDEC runs below (the fused output of a short run).
  (cd "$run_dir" && ../bin/framepipe run "$root/config/default.yaml" --device cuda:0 -q \
    -i 'testsrc://192x108@25?noise=20&frames=12' --set out.output=nvdec-input.mp4) >"$logs/pipeline-nvdec-input.log" 2>&1 ||
    failed "making the NVDEC input"
  for tool in $tools; do
    (cd "$run_dir" && sanitized "$logs/pipeline-$tool.log" "$tool" \
      ../bin/framepipe run "$root/config/default.yaml" --device cuda:0 --slots 3 -q \
      -i 'testsrc://161x97@25?noise=20&frames=8')
    rc=$?
    echo "compute-sanitizer $tool pipeline (3 slots): exit $rc;" \
      "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/pipeline-$tool.log" | tail -1)"
    [ $rc -eq 0 ] || failed "compute-sanitizer $tool on the pipeline"
    # Four streams of it in one process, each with its own slots on the one device.
    (cd "$run_dir" && sanitized "$logs/pipeline-streams-$tool.log" "$tool" \
      ../bin/framepipe run "$root/config/default.yaml" --device cuda:0 --slots 2 -q \
      --set 'hist.output={stream}.jsonl' --set 'out.output={stream}.mp4' --set 'skelout.output={stream}.mkv' \
      --set 'cmpout.output={stream}-compare.mp4' \
      -i 'testsrc://161x97@25?noise=20&frames=6' -i 'testsrc://96x64@25?noise=5&frames=5' \
      -i 'testsrc://161x97@25?frames=4' -i 'testsrc://200x120@25?noise=30&frames=6')
    rc=$?
    echo "compute-sanitizer $tool pipeline (4 streams): exit $rc;" \
      "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$logs/pipeline-streams-$tool.log" | tail -1)"
    [ $rc -eq 0 ] || failed "compute-sanitizer $tool on the 4-stream pipeline"
    # Four streams decoded on NVDEC: decoded surfaces read in place by the slots' kernels,
    # under memcheck and synccheck. Not under racecheck: it finds hazards in a kernel's shared
    # memory, which the decoder does not change (every kernel, NV12's split_chroma included,
    # runs under it in the GPU tests and the testsrc runs above), and under it libnvcuvid's
    # own driver calls (cuStreamQuery while decoding, cuMemFree when a decoder closes) stall
    # inside the sanitizer's interception, every other thread waiting on the driver's lock:
    # 1 run in 4 to 3 in 5 never ends (docs/ARCHITECTURE.md, "compute-sanitizer and NVDEC").
    # NVDEC_TOOLS overrides the tools (NVDEC_TOOLS=racecheck NVDEC_REPEAT=4 reproduces it, each
    # run's log ending with every thread's stack), NVDEC_REPEAT repeats the run.
    [[ " ${NVDEC_TOOLS:-memcheck synccheck} " == *" $tool "* ]] || continue
    for repeat in $(seq "${NVDEC_REPEAT:-1}"); do
      log=$logs/pipeline-nvdec-$tool$([ "$repeat" = 1 ] || echo "-$repeat").log
      start=$(date +%s)
      (cd "$run_dir" && sanitized "$log" "$tool" \
        ../bin/framepipe run "$root/config/default.yaml" --device cuda:0 --slots 2 -q --decoder nvdec --frames 6 \
        --set 'hist.output=nv-{stream}.jsonl' --set 'out.output=nv-{stream}.mp4' --set 'skelout.output=nv-{stream}.mkv' \
        --set 'cmpout.output=nv-{stream}-compare.mp4' \
        -i nvdec-input.mp4 -i nvdec-input.mp4 -i nvdec-input.mp4 -i nvdec-input.mp4)
      rc=$?
      if only_untracked_driver_launch "$tool" "$rc" "$log"; then
        echo "  (racecheck: the only error is NVDEC's untracked driver kernel; no race reported)"
        rc=0
      fi
      echo "compute-sanitizer $tool pipeline (4 NVDEC streams, run $repeat): exit $rc in $(($(date +%s) - start)) s;" \
        "$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
      [ $rc -eq 0 ] || failed "compute-sanitizer $tool on the 4-stream NVDEC pipeline (run $repeat)"
    done
  done
fi

if [[ $steps == *" pipelines "* ]]; then
  run_dir=build-gpu/pipeline-run
  mkdir -p "$run_dir"
  for size in 640x360 1920x1080; do
    (cd "$run_dir" && ../bin/framepipe run "$root/config/default.yaml" --device cuda:0 -q \
      -i "testsrc://$size@30?noise=20&frames=240" --stats-json "$logs/pipeline-$size.json") >"$logs/pipeline-$size.log" 2>&1
    rc=$?
    echo "pipeline $size: exit $rc $(tr -d '\n ' <"$logs/pipeline-$size.json" 2>/dev/null | grep -oE '"fps":[0-9.]+')"
    [ $rc -eq 0 ] || failed "pipeline $size"
  done
fi
build-gpu/bin/framepipe --version
if [[ $steps == *" bench "* ]]; then
  build-gpu/bin/framepipe bench --bounds "${BENCH_BOUNDS:-auto}" --json "$logs/bench.json" >"$logs/bench.txt" 2>&1
  rc=$?
  echo "bench: exit $rc"
  cat "$logs/bench.txt"
  [ $rc -eq 0 ] || failed "bench"
fi
echo "gpu-check: $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
