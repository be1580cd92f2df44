#!/usr/bin/env bash
# Fuzzing (tests/fuzz/README.md): installs clang-16 and libFuzzer (tools/setup.sh --fuzz),
# builds the fuzz targets into build-fuzz/ (FRAMEPIPE_FUZZ=ON: ASan + UBSan), replays every
# seed corpus and every committed regression (any crash fails), then fuzzes each target
# for SECONDS (default 60) into a scratch corpus under build-fuzz/ (the committed corpus is
# only read), and prints executions and crashes per target. Exits non-zero on any crash,
# leak, timeout or out-of-memory.
#
#   tools/fuzz.sh [SECONDS]          SECONDS=0: build and replay only
#   FUZZ_TARGETS="uri" tools/fuzz.sh 600
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
case "$seconds" in '' | *[!0-9]*) echo "usage: tools/fuzz.sh [SECONDS-PER-TARGET]" >&2; exit 2 ;; esac
targets=(${FUZZ_TARGETS:-pipeline_yaml uri media_decode http_request stream_spec_json})
build="$root/build-fuzz"
fuzz="$root/tests/fuzz"

"$root/tools/setup.sh" --fuzz
start=$(date +%s)
cmake -S "$root" -B "$build" -DFRAMEPIPE_FUZZ=ON -DFRAMEPIPE_CUDA=OFF -DFRAMEPIPE_BUILD_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 >/dev/null
cmake --build "$build" -j"$(nproc)" --target "${targets[@]/#/fuzz_}"
built=$(date +%s)
echo "fuzz: built in $((built - start)) s"

# Readable stacks in reports; halt on the first UB (also compiled in: -fno-sanitize-recover).
symbolizer=$(command -v llvm-symbolizer-16 || command -v llvm-symbolizer || true)
[ -n "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH="$symbolizer"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# Per target: the seed folders (the committed corpus first), the longest input worth trying,
# and the time one input may take before it counts as a hang.
seeds() {
  echo "$fuzz/corpus/$1"
  [ "$1" != pipeline_yaml ] || printf '%s\n' "$root/config" "$root/tests/config/valid" "$root/tests/config/malformed"
}
max_len() { case "$1" in pipeline_yaml) echo 4096 ;; uri) echo 256 ;; media_decode) echo 16384 ;; http_request) echo 131072 ;; stream_spec_json) echo 65536 ;; esac; }
timeout_s() { case "$1" in media_decode) echo 30 ;; http_request) echo 15 ;; *) echo 10 ;; esac; }

failed=0
mkdir -p "$build/fuzz-logs"
stamp="$build/fuzz-logs/.started"  # findings of this run are newer than it
touch "$stamp"
declare -A replay_result execs rates crashes fuzz_result
for t in "${targets[@]}"; do
  bin="$build/bin/fuzz_$t"
  common=(-timeout="$(timeout_s "$t")" -rss_limit_mb=2048 -max_len="$(max_len "$t")")
  log="$build/fuzz-logs/$t"
  mkdir -p "$log"

  # Replay: every seed and every committed regression, each file once (libFuzzer runs files
  # given by name and nothing else; it stops at the first failure).
  mapfile -t seed_dirs < <(seeds "$t")
  mapfile -t inputs < <(find "${seed_dirs[@]}" "$fuzz/regressions/$t" -type f 2>/dev/null | sort)
  if [ ${#inputs[@]} -eq 0 ]; then
    echo "fuzz: $t: no seeds found in ${seed_dirs[*]}" >&2
    exit 1
  fi
  if "$bin" "${common[@]}" "${inputs[@]}" >"$log/replay.log" 2>&1; then
    replay_result[$t]="ok (${#inputs[@]})"
  else
    replay_result[$t]=FAILED
    failed=1
    echo "fuzz: $t: replay FAILED; the end of $log/replay.log:"
    tail -n 40 "$log/replay.log"
  fi

  execs[$t]=0
  rates[$t]=-
  crashes[$t]=0
  fuzz_result[$t]=skipped
  [ "$seconds" -gt 0 ] || continue
  # Fuzz: new inputs go to a scratch corpus (kept between local runs, so it grows); findings
  # go to build-fuzz/fuzz-artifacts/.
  scratch="$build/fuzz-corpus/$t"
  artifacts="$build/fuzz-artifacts"
  mkdir -p "$scratch" "$artifacts"
  status=0
  "$bin" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 -dict="$fuzz/dict/$t.dict" \
    -artifact_prefix="$artifacts/$t-" "$scratch" "${seed_dirs[@]}" >"$log/fuzz.log" 2>&1 || status=$?
  # The final stats, or after a crash the last progress line ("#1234  pulse ...").
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log/fuzz.log" | tail -n 1)
  [ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$log/fuzz.log" | tail -n 1 | tr -d '#')
  execs[$t]=${n:-0}
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log/fuzz.log" | tail -n 1)
  rates[$t]=${rate:-$((execs[$t] / seconds))}
  crashes[$t]=$(find "$artifacts" -newer "$stamp" \( -name "$t-crash-*" -o -name "$t-leak-*" -o -name "$t-timeout-*" \
    -o -name "$t-oom-*" \) | wc -l)
  if [ "$status" -eq 0 ]; then
    fuzz_result[$t]=ok
  else
    fuzz_result[$t]="FAILED (exit $status)"
    failed=1
    echo "fuzz: $t: fuzzing FAILED; the end of $log/fuzz.log:"
    tail -n 60 "$log/fuzz.log"
  fi
done

echo
printf '%-15s %-10s %12s %8s %8s  %s\n' target replay executions exec/s crashes fuzzing
for t in "${targets[@]}"; do
  printf '%-15s %-10s %12s %8s %8s  %s\n' "$t" "${replay_result[$t]}" "${execs[$t]}" "${rates[$t]}" "${crashes[$t]}" \
    "${fuzz_result[$t]}"
done
echo "fuzz: ${#targets[@]} targets, ${seconds} s each, $(($(date +%s) - start)) s in all (build included)"
echo "build $((built - start)) tests $(($(date +%s) - built))" >"$build/ci-times"  # .ci/run's summary
if [ "$failed" -ne 0 ]; then
  find "$build/fuzz-artifacts" -type f -newer "$stamp" 2>/dev/null | sed 's/^/fuzz: found /'
  echo "fuzz: FAILED — reproduce with build-fuzz/bin/fuzz_TARGET FILE; see tests/fuzz/README.md"
  exit 1
fi
