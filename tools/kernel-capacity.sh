#!/usr/bin/env bash
# The kernels' capacity of several framepipe builds side by side, in one run on one GPU: N
# testsrc streams (1080p, noise as a camera's, no decoding) through tools/five-stages.yaml in
# one process, frames over wall time, each build ROUNDS times in turn so that clocks and
# neighbours weigh on all alike. This is stream-bench's "kernel-capacity" row,
# for comparing an old build with a new one (issue 21: old and new in the same call).
#
#   tools/kernel-capacity.sh FRAMEPIPE... (env: STREAMS "32 48", FRAMES 100 per stream, ROUNDS 2,
#   DEVICE cuda:0)
# Prints one line per build, N and round, then a median table; exits non-zero when a run fails.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 FRAMEPIPE..." >&2; exit 2; }
streams_list=${STREAMS:-32 48}
frames=${FRAMES:-100}
rounds=${ROUNDS:-2}
device=${DEVICE:-cuda:0}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
builds=()
for fp in "$@"; do builds+=("$(realpath "$fp")"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1  # the histogram's file ("null") and the stats stay in the work folder
cp "$here/five-stages.yaml" "$work/five.yaml"
status=0
results=$work/results.txt
for n in $streams_list; do
  args=()
  for ((i = 0; i < n; ++i)); do args+=(-i "testsrc://1920x1080@30?noise=20&frames=$frames&loop=30"); done
  for ((r = 1; r <= rounds; ++r)); do
    for fp in "${builds[@]}"; do
      t0=$(date +%s.%N)
      if ! "$fp" run "$work/five.yaml" "${args[@]}" --device "$device" -q --stats-json "$work/stats.json" >"$work/run.log" 2>&1; then
        echo "$fp N=$n: failed"; tail -5 "$work/run.log"; status=1; continue
      fi
      t1=$(date +%s.%N)
      got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' "$work/stats.json")
      fps=$(awk "BEGIN { printf \"%.0f\", $got / ($t1 - $t0) }")
      echo "$fp N=$n round $r: $got frames, $fps fps"
      echo "$fp $n $fps" >>"$results"
    done
  done
done
echo
echo "| build | streams | fps (median of $rounds) |"
echo "|---|---|---|"
[ -f "$results" ] && python3 - "$results" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    fp, n, fps = line.split()
    rows.setdefault((fp, int(n)), []).append(float(fps))
for (fp, n), v in rows.items():
    print(f"| {fp} | {n} | {statistics.median(v):.0f} |")
EOF
exit $status
