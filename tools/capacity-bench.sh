#!/usr/bin/env bash
# What a GPU machine carries, predicted and checked in one run (issue 33, docs/sizing.md).
# Camera-like 1080p30 H.264 (made with ffmpeg: source .gpudeps/env.sh), NVDEC, two pipelines:
#   hist  tools/five-stages.yaml: the five stages, a histogram the only output;
#   x264  the same and one x264 output of the denoised frames (preset veryfast, crf 18).
# Sections (SECTIONS, default "predict encoded live"):
#   predict  `framepipe bench --pipeline` of each: the streams this machine carries and what
#            runs out first (bench-hist.json, bench-x264.json).
#   encoded  ENCODED_STREAMS (16) x264 pipelines in one process, unpaced, for each build given
#            (the old one first), beside as many FFmpeg processes decoding on NVDEC and
#            encoding with the same x264 options: fps, process CPU a frame, peak RSS (for
#            FFmpeg: the sum of the processes'), for each of PRESETS (veryfast ultrafast).
#   live     the newest build, paced at 30 fps with drop oldest, for LIVE_SECONDS (60) each, at
#            the predicted count and around it (LIVE_HIST and LIVE_X264: counts; default the
#            prediction plus each of LIVE_STEPS_HIST / LIVE_STEPS_X264, "-2 0 2"; with
#            LIVE_HOLD_SECONDS, the x264 prediction held that long):
#            dropped %, worst stream's p99 latency.
#   tools/capacity-bench.sh FRAMEPIPE...   (the last is the newest build; results in $OUT or ./)
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 FRAMEPIPE... (the newest last)" >&2; exit 2; }
command -v ffmpeg >/dev/null || { echo "capacity-bench: needs ffmpeg (source .gpudeps/env.sh)" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
builds=()
for fp in "$@"; do builds+=("$(realpath "$fp")"); done
newest=${builds[-1]}
out=${OUT:-$PWD}
sections=" ${SECTIONS:-predict encoded live} "
live_seconds=${LIVE_SECONDS:-60}
encoded_streams=${ENCODED_STREAMS:-16}
encoded_frames=${ENCODED_FRAMES:-300}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
cd "$work" || exit 1
status=0
log() { echo "$*" | tee -a "$out/capacity-bench.txt"; }

# As stream-bench's camera clip: testsrc2 with temporal noise, GOP 2 s, no B-frames, 8 Mb/s;
# the live clip is it twelve times over (4 minutes), copied, not re-encoded.
[ -s camera.mp4 ] || ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30" -frames:v 600 \
  -vf "noise=alls=20:allf=t" -c:v libx264 -preset veryfast -g 60 -bf 0 -b:v 8M -maxrate 8M -bufsize 16M \
  -pix_fmt yuv420p camera.mp4 || exit 1
[ -s live.mp4 ] || ffmpeg -hide_banner -loglevel error -y -stream_loop 11 -i camera.mp4 -c copy live.mp4 || exit 1
cp "$here/five-stages.yaml" hist.yaml
for preset in veryfast ultrafast; do
  { cat "$here/five-stages.yaml"
    echo "  - {id: out, type: encode, input: denoise, output: 'out-{stream}.ts', preset: $preset, crf: 18}"; } >"x264-$preset.yaml"
done
# X264_LATENCY=low tries x264's zerolatency instead: each frame encoded in the sink's own
# call, its slices on x264's threads. On an H200 machine it carried fewer streams (6 dropped
# 9%: 37 ms of the sink's time a frame) than the frame threads of latency normal.
{ cat "$here/five-stages.yaml"
  echo "  - {id: out, type: encode, input: denoise, output: 'out-{stream}.ts', preset: veryfast, crf: 18, latency: ${X264_LATENCY:-normal}}"; } >x264.yaml

predicted() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["streams"])' "$1"; }

if [[ $sections == *" predict "* ]]; then
  log "## predict: framepipe bench --pipeline ($(basename "$newest"))"
  for p in hist x264; do
    "$newest" bench --pipeline "$p.yaml" -i camera.mp4 --seconds "${BENCH_SECONDS:-10}" --json "$out/bench-$p.json" \
      >"$out/bench-$p.txt" 2>&1 || { log "bench --pipeline $p failed"; tail -5 "$out/bench-$p.txt"; status=1; continue; }
    sed 's/^/    /' "$out/bench-$p.txt" | tee -a "$out/capacity-bench.txt" | grep -E "CPU|GPU|host|carries|encoder"
  done
fi

# N processes or streams, peak RSS: one python harness for both, so both are measured alike.
run_measured() {  # label frames-in-all command... (NPROC copies of the command when NPROC > 1)
  local label=$1 total=$2
  shift 2
  python3 - "$label" "$total" "${NPROC:-1}" "$@" <<'PY' | tee -a "$out/capacity-bench.txt"
import os, subprocess, sys, time
label, total, copies, cmd = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
t0 = time.monotonic()
procs = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(f"run-{i}.log", "w")) for i in range(copies)]
rss = 0
cpu = 0.0
failed = 0
for p in procs:
    _, status, use = os.wait4(p.pid, 0)
    failed += os.waitstatus_to_exitcode(status) != 0
    rss += use.ru_maxrss
    cpu += use.ru_utime + use.ru_stime
wall = time.monotonic() - t0
state = f"FAILED ({failed})" if failed else "ok"
print(f"  {label:<44} {total / wall:8.1f} fps  {1000 * cpu / total:7.2f} ms CPU/frame  "
      f"peak RSS {rss / 1024:7.0f} MB ({rss / 1024 / max(int(os.environ.get('STREAMS', '1')), 1):5.0f} a stream)  {state}")
PY
}

if [[ $sections == *" encoded "* ]]; then
  n=$encoded_streams
  log "## encoded: $n streams of five stages + one x264 output, $encoded_frames frames each, unpaced"
  args=()
  for ((i = 0; i < n; ++i)); do args+=(-i camera.mp4); done
  for preset in ${PRESETS:-veryfast ultrafast}; do
    for fp in "${builds[@]}"; do
      rm -f out-*.ts
      STREAMS=$n run_measured "framepipe $preset $(basename "$(dirname "$(dirname "$fp")")")" $((n * encoded_frames)) \
        "$fp" run "x264-$preset.yaml" "${args[@]}" --decoder nvdec --frames "$encoded_frames" -q
    done
    rm -f ff-*.ts
    STREAMS=$n NPROC=$n run_measured "ffmpeg x $n (nvdec + libx264 $preset)" $((n * encoded_frames)) \
      ffmpeg -hide_banner -nostats -loglevel error -y -hwaccel cuda -i camera.mp4 -frames:v "$encoded_frames" \
      -c:v libx264 -preset "$preset" -crf 18 -f mpegts /dev/null
  done
fi

live_run() {  # pipeline streams seconds
  local p=$1 n=$2 seconds=$3 args=() i
  for ((i = 0; i < n; ++i)); do args+=(-i live.mp4); done
  rm -f out-*.ts
  "$newest" run "$p.yaml" "${args[@]}" --decoder nvdec --realtime --drop oldest --frames $((seconds * 30)) -q \
    --stats-json "live-$p-$n.json" >"live-$p-$n.log" 2>&1 || { log "  live $p N=$n: failed"; tail -3 "live-$p-$n.log"; status=1; return; }
  python3 - "live-$p-$n.json" "$p" "$n" "$seconds" <<'PY' | tee -a "$out/capacity-bench.txt"
import json, sys
s = json.load(open(sys.argv[1]))
streams = s.get("streams", [s])
frames = sum(t["frames"] for t in streams)
dropped = s.get("frames_dropped", 0)
p99 = max(t["latency_ms"]["p99"] for t in streams)
holds = dropped <= 0.001 * (frames + dropped) and p99 <= 100
print(f"  live {sys.argv[2]:<5} N={sys.argv[3]:<3} {sys.argv[4]} s: {frames} frames, dropped {dropped} "
      f"({100 * dropped / max(frames + dropped, 1):.3f}%), worst p99 {p99:.1f} ms -> {'holds' if holds else 'does not hold'}")
PY
  cp "live-$p-$n.json" "$out/" 2>/dev/null
}

if [[ $sections == *" live "* ]]; then
  log "## live: paced 30 fps, drop oldest, $live_seconds s each (holds: <= 0.1% dropped and p99 <= 100 ms)"
  for p in hist x264; do
    var=LIVE_$(echo $p | tr a-z A-Z)
    counts=${!var:-}
    steps_var=LIVE_STEPS_$(echo $p | tr a-z A-Z)
    if [ -z "$counts" ] && [ -s "$out/bench-$p.json" ]; then
      k=$(predicted "$out/bench-$p.json")
      counts=""
      for step in ${!steps_var:--2 0 2}; do counts="$counts $((k + step))"; done
    fi
    for n in $counts; do [ "$n" -ge 1 ] && live_run "$p" "$n" "$live_seconds"; done
  done
  if [ -n "${LIVE_HOLD_SECONDS:-}" ] && [ -s "$out/bench-x264.json" ]; then
    live_run x264 "$(predicted "$out/bench-x264.json")" "$LIVE_HOLD_SECONDS"
  fi
fi
exit $status
