#!/usr/bin/env bash
# Fuzzing (tests/fuzz/README.md): installs clang-16 and libFuzzer (tools/setup.sh --fuzz),
# builds the fuzz targets in build-asan/ (the asan preset is the fuzz build, FRAMEPIPE_FUZZ=ON:
# ASan + UBSan + libFuzzer's coverage, with the tests; after tools/run-sanitizers.sh asan
# there is nothing left to compile), replays every seed corpus and every committed
# regression (any crash fails), then fuzzes each target for SECONDS (default 60) into a
# scratch corpus under build-fuzz/ (the committed corpus is only read), as many targets at
# once as there are cores, and prints executions and crashes per target. Exits non-zero on
# any crash, leak, timeout or out-of-memory.
#
#   tools/fuzz.sh [SECONDS]          SECONDS=0: build and replay only
#   FUZZ_TARGETS="uri" tools/fuzz.sh 600
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-60}
case "$seconds" in '' | *[!0-9]*) echo "usage: tools/fuzz.sh [SECONDS-PER-TARGET]" >&2; exit 2 ;; esac
targets=(${FUZZ_TARGETS:-pipeline_yaml uri media_decode http_request stream_spec_json})
build="$root/build-fuzz"  # what fuzzing makes: logs, the scratch corpus, findings
bin_dir="$root/build-asan/bin"
fuzz="$root/tests/fuzz"

"$root/tools/setup.sh" --fuzz
start=$(date +%s)
cd "$root"
tools/configure-preset.sh asan >/dev/null
cmake --build --preset asan -j"$(nproc)" --target "${targets[@]/#/fuzz_}"
built=$(date +%s)
echo "fuzz: built in $((built - start)) s"
mkdir -p "$build"

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

mkdir -p "$build/fuzz-logs"
stamp="$build/fuzz-logs/.started"  # findings of this run are newer than it
touch "$stamp"

# One target: replay, then fuzz. Its results go to $log/result (replay, executions, exec/s,
# fuzzing), read back below, since the targets run side by side in subshells.
run_target() {
  local t=$1 bin="$bin_dir/fuzz_$1" log="$build/fuzz-logs/$1"
  local common=(-timeout="$(timeout_s "$t")" -rss_limit_mb=2048 -max_len="$(max_len "$t")")
  local replay fuzzing=skipped n=0 rate=- status=0
  mkdir -p "$log"
  rm -f "$log/result"

  # Replay: every seed and every committed regression, each file once (libFuzzer runs files
  # given by name and nothing else; it stops at the first failure).
  local seed_dirs inputs
  mapfile -t seed_dirs < <(seeds "$t")
  mapfile -t inputs < <(find "${seed_dirs[@]}" "$fuzz/regressions/$t" -type f 2>/dev/null | sort)
  if [ ${#inputs[@]} -eq 0 ]; then
    echo "fuzz: $t: no seeds found in ${seed_dirs[*]}" >&2
    printf 'FAILED(no-seeds) 0 - skipped\n' >"$log/result"
    return 1
  fi
  if "$bin" "${common[@]}" "${inputs[@]}" >"$log/replay.log" 2>&1; then
    replay="ok(${#inputs[@]})"
  else
    replay=FAILED
    echo "fuzz: $t: replay FAILED; the end of $log/replay.log:"
    tail -n 40 "$log/replay.log"
  fi

  if [ "$seconds" -gt 0 ]; then
    # Fuzz: new inputs go to a scratch corpus (kept between local runs, so it grows); findings
    # go to build-fuzz/fuzz-artifacts/.
    local scratch="$build/fuzz-corpus/$t" artifacts="$build/fuzz-artifacts"
    mkdir -p "$scratch" "$artifacts"
    "$bin" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 -dict="$fuzz/dict/$t.dict" \
      -artifact_prefix="$artifacts/$t-" "$scratch" "${seed_dirs[@]}" >"$log/fuzz.log" 2>&1 || status=$?
    # The final stats, or after a crash the last progress line ("#1234  pulse ...").
    n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log/fuzz.log" | tail -n 1)
    [ -n "$n" ] || n=$(grep -o '^#[0-9]*' "$log/fuzz.log" | tail -n 1 | tr -d '#')
    n=${n:-0}
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log/fuzz.log" | tail -n 1)
    rate=${rate:-$((n / seconds))}
    if [ "$status" -eq 0 ]; then
      fuzzing=ok
    else
      fuzzing="FAILED(exit-$status)"
      echo "fuzz: $t: fuzzing FAILED; the end of $log/fuzz.log:"
      tail -n 60 "$log/fuzz.log"
    fi
  fi
  printf '%s %s %s %s\n' "$replay" "$n" "$rate" "$fuzzing" >"$log/result"
  [ "$replay" != FAILED ] && [ "$status" -eq 0 ]
}

# The targets run side by side, as many at once as there are cores: each is one process on
# one core, so CI's two cores fuzz two targets at a time and the step takes half as long as
# one after another, for the same fuzzing time per target.
failed=0
jobs_max=$(nproc)
active=0
for t in "${targets[@]}"; do
  if [ "$active" -ge "$jobs_max" ]; then
    wait -n || failed=1
    active=$((active - 1))
  fi
  run_target "$t" &
  active=$((active + 1))
done
while [ "$active" -gt 0 ]; do
  wait -n || failed=1
  active=$((active - 1))
done

declare -A replay_result execs rates crashes fuzz_result
for t in "${targets[@]}"; do
  read -r replay_result[$t] execs[$t] rates[$t] fuzz_result[$t] <"$build/fuzz-logs/$t/result" 2>/dev/null ||
    { replay_result[$t]=FAILED; execs[$t]=0; rates[$t]=-; fuzz_result[$t]="FAILED(no-result)"; failed=1; }
  [ "${replay_result[$t]}" != FAILED ] || failed=1
  crashes[$t]=$(find "$build/fuzz-artifacts" -newer "$stamp" \( -name "$t-crash-*" -o -name "$t-leak-*" \
    -o -name "$t-timeout-*" -o -name "$t-oom-*" \) 2>/dev/null | wc -l)
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
  echo "fuzz: FAILED — reproduce with build-asan/bin/fuzz_TARGET FILE; see tests/fuzz/README.md"
  exit 1
fi
