#!/usr/bin/env bash
# Long-run check: the full default pipeline (all eight stage types, its three encoders, the
# histogram file) on an endless test source paced at its frame rate, for MINUTES (default 10). Every
# 10 s the process's resident memory (and, on a GPU, its device memory from nvidia-smi) goes
# into a CSV. After the warm-up (the first WARMUP_S seconds, default 60: pools fill, the
# encoders reach their steady lookahead) neither may grow by more than 1% of its first
# sample after the warm-up. Then the run is stopped with SIGINT and must exit 130 with its
# outputs finalized: ffprobe decodes every video to its end (an mp4 whose index was never
# written does not open) and finds as many frames in each as the histogram file has rows,
# and those rows are whole lines of JSON.
#
#   tools/soak.sh [MINUTES]
# Environment: FRAMEPIPE (the binary; default build/bin/framepipe, or build-gpu/bin/framepipe
# when that exists), DEVICE (default auto), INPUT (default 1080p30 on a GPU, 320x240@10 on
# the CPU, which cannot keep up with 1080p30 on a small machine), SOAK_DIR (outputs and the
# CSV; default build/soak), WARMUP_S, INTERVAL_S (default 10), STREAMS (default 1: that many
# streams of the input in one process, each with its own outputs).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
minutes=${1:-10}
interval=${INTERVAL_S:-10}
warmup=${WARMUP_S:-60}
binary=${FRAMEPIPE:-}
if [ -z "$binary" ]; then
  binary=$root/build/bin/framepipe
  [ -x "$root/build-gpu/bin/framepipe" ] && binary=$root/build-gpu/bin/framepipe
fi
device=${DEVICE:-auto}
dir=${SOAK_DIR:-$root/build/soak}
mkdir -p "$dir"
csv=$dir/soak.csv

gpu=0
if command -v nvidia-smi >/dev/null && [ "$device" != cpu ] && "$binary" --version | grep -q 'cuda:'; then gpu=1; fi
input=${INPUT:-}
if [ -z "$input" ]; then
  if [ $gpu = 1 ]; then input='testsrc://1920x1080@30?noise=20&frames=0'; else input='testsrc://320x240@10?noise=20&frames=0'; fi
fi

streams=${STREAMS:-1}
inputs=(-i "$input")
if [ "$streams" -gt 1 ]; then
  inputs=()
  for _ in $(seq "$streams"); do inputs+=(-i "$input"); done
  inputs+=(--set 'hist.output={stream}.jsonl' --set 'out.output={stream}.mp4' --set 'skelout.output={stream}.mkv'
    --set 'cmpout.output={stream}-compare.mp4')
fi
echo "soak: $minutes min of config/default.yaml on $device, $streams x input $input, sampled every ${interval}s into $csv"
(cd "$dir" && exec "$binary" run "$root/config/default.yaml" --device "$device" "${inputs[@]}" --realtime -q \
  --stats-json stats.json) >"$dir/framepipe.log" 2>&1 &
pid=$!

gpu_mib() {  # this process's device memory, MiB (empty when none is listed)
  nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits 2>/dev/null |
    awk -F', *' -v pid="$pid" '$1 == pid { print $2 }'
}
echo "seconds,rss_kib,gpu_mib" >"$csv"
start=$(date +%s)
end=$((start + minutes * 60))
while [ "$(date +%s)" -lt "$end" ]; do
  sleep "$interval"
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "soak: framepipe ended early"; cat "$dir/framepipe.log"; exit 1
  fi
  rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$pid/status")
  mem=""
  [ $gpu = 1 ] && mem=$(gpu_mib)
  echo "$(( $(date +%s) - start )),$rss,$mem" >>"$csv"
done

kill -INT "$pid"
wait "$pid"
rc=$?
status=0
if [ $rc -ne 130 ]; then echo "soak: framepipe exited $rc after SIGINT (expected 130)"; status=1; fi
cat "$dir/framepipe.log"

# The outputs of each stream (config/default.yaml's names; stream N's with several).
stream_outputs() {  # histogram rows first, then the videos
  if [ "$streams" -gt 1 ]; then echo "$1.jsonl $1.mp4 $1.mkv $1-compare.mp4"
  else echo "histogram.jsonl fused.mp4 skeleton.mkv compare.mp4"; fi
}
# Frames that ffprobe decodes in a video; empty when it cannot read it to the end.
decoded_frames() {
  ffprobe -v error -count_frames -select_streams v:0 -show_entries stream=nb_read_frames -of csv=p=0 "$1" 2>/dev/null |
    grep -xE '[0-9]+'
}
# Rows of a histogram file when every one is a whole line of JSON (the last one ends with a
# newline too); empty otherwise.
whole_json_rows() {
  python3 -c 'import json, sys
text = open(sys.argv[1]).read()
if not text.endswith("\n"): sys.exit(1)
rows = text.splitlines()
for row in rows: json.loads(row)
print(len(rows))' "$1" 2>/dev/null
}
for stream in $(seq 0 $((streams - 1))); do
  read -r rows_file videos <<<"$(stream_outputs "$stream")"
  rows=$(whole_json_rows "$dir/$rows_file")
  if [ -z "$rows" ] || [ "$rows" -eq 0 ]; then
    echo "soak: $rows_file is not whole rows of JSON (or has none)"; status=1; continue
  fi
  for video in $videos; do
    frames=$(decoded_frames "$dir/$video")
    if [ -z "$frames" ]; then echo "soak: $video was not finalized (ffprobe cannot read it)"; status=1
    elif [ "$frames" -ne "$rows" ]; then echo "soak: $video has $frames frames, $rows_file $rows rows"; status=1
    else echo "soak: $video: $frames frames, finalized"; fi
  done
done

# Growth after the warm-up: the largest later sample against the first one after warm-up.
report=$(awk -F, -v warmup="$warmup" '
  NR == 1 { next }
  $1 >= warmup {
    if (!base_set) { base_rss = $2; base_gpu = $3; base_set = 1 }
    if ($2 > max_rss) max_rss = $2
    if ($3 != "" && $3 > max_gpu) max_gpu = $3
    n++
  }
  END {
    if (n < 2) { print "too few samples after the warm-up"; exit 2 }
    rss_growth = (max_rss - base_rss) * 100.0 / base_rss
    printf "samples after warm-up %d; RSS %d -> max %d KiB (%+.2f%%)", n, base_rss, max_rss, rss_growth
    bad = rss_growth > 1.0
    if (base_gpu != "") {
      gpu_growth = (max_gpu - base_gpu) * 100.0 / base_gpu
      printf "; GPU %d -> max %d MiB (%+.2f%%)", base_gpu, max_gpu, gpu_growth
      bad = bad || gpu_growth > 1.0
    }
    printf "\n"
    exit bad ? 1 : 0
  }' "$csv")
rc=$?
echo "soak: $report"
[ $rc -eq 0 ] || { echo "soak: memory grew by more than 1% after the warm-up (or too few samples)"; status=1; }
frames=$(grep -oE '"frames": *[0-9]+' "$dir/stats.json" 2>/dev/null | head -1 | grep -oE '[0-9]+$')
echo "soak: ${frames:-?} frames in $minutes min; $([ $status -eq 0 ] && echo PASSED || echo FAILED)"
exit $status
