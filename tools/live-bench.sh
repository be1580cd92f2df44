#!/usr/bin/env bash
# Live benchmark on a GPU machine: a noisy 1080p30 H.264 stream arrives as MPEG-TS over UDP
# on loopback, sent in real time by FFmpeg (looping a file that framepipe encodes first), and
# framepipe runs the five processing stages on the GPU plus a low-latency x264 output.
# Reports latency (packet read -> output packet written: p50/p95/p99/max), frames dropped,
# decode damage (UDP loss), and CPU and GPU use over SECONDS. Then, in the same run and on
# the same stream, FFmpeg with the nearest CPU filter chain (nlmeans + boxblur + x264
# zerolatency) for SECONDS_FFMPEG, for comparison: the frames it managed and its speed.
#
# UDP and not RTSP because the GPU machine has no RTSP server (no GStreamer): the sender is
# FFmpeg's udp protocol, which the carried .gpudeps FFmpeg has.
#
#   tools/live-bench.sh [SECONDS] [SECONDS_FFMPEG]      (default 120 and 60)
# Needs a CUDA build in build-gpu/ (tools/gpu-check.sh makes it) or FRAMEPIPE=path, and
# .gpudeps/ (../shared/tools/build-gpu-deps). Writes build-gpu/live-bench/ (and $OUT when set).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
seconds=${1:-120}
ffmpeg_seconds=${2:-60}
framepipe=${FRAMEPIPE:-$root/build-gpu/bin/framepipe}
work=$root/build-gpu/live-bench
[ -f "$root/.gpudeps/env.sh" ] && source "$root/.gpudeps/env.sh"
mkdir -p "$work"
cd "$work" || exit 1
[ -x "$framepipe" ] || { echo "live-bench: no framepipe at $framepipe (run tools/gpu-check.sh first)" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "live-bench: needs ffmpeg (source .gpudeps/env.sh)" >&2; exit 1; }
port=$((20000 + RANDOM % 20000))
url="udp://127.0.0.1:$port"
status=0

# 1. The stream: 10 s of noisy 1080p30 (sigma 20, as a dim sensor), H.264 at a camera's
# bitrate and GOP (1 s), no B-frames, as a camera would send.
if [ ! -s noisy.ts ]; then
  cat >make.yaml <<'EOF'
device: cpu
input: testsrc://1920x1080@30?noise=20&frames=300
stages:
  - {id: out, type: encode, output: noisy.ts, crf: 23, preset: veryfast, latency: low}
EOF
  "$framepipe" run make.yaml -q || { echo "live-bench: cannot make the stream" >&2; exit 1; }
fi
ffprobe -v error -show_entries format=bit_rate,duration -of compact noisy.ts

start_sender() {
  ffmpeg -hide_banner -loglevel error -re -stream_loop -1 -i noisy.ts -c copy -f mpegts "$url?pkt_size=1316" &
  sender=$!
}

# CPU seconds (user + system) a process has used so far.
cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat" 2>/dev/null || echo 0; }

# 2. framepipe: the five GPU stages on the live stream, a low-latency encode to a file.
cat >live.yaml <<EOF
device: cuda:0
input: "$url?fifo_size=1000000&overrun_nonfatal=1"
stages:
  - {id: hist,    type: luma_histogram, output: hist.jsonl}
  - {id: denoise, type: nlmeans, h: 10, patch: 7, search: 21}
  - {id: fused,   type: pyramid_fusion, inputs: [input, denoise], levels: 5, rule: max_energy}
  - {id: smooth,  type: mean_smooth, input: input, radius: 2}
  - {id: skel,    type: thinning, input: smooth, threshold: otsu}
  - {id: out,     type: encode, input: fused, output: live-out.ts, preset: veryfast, latency: low}
EOF
rm -f live-out.ts stats.json gpu.csv
"$framepipe" run live.yaml -q --stats-json stats.json >framepipe.log 2>&1 &
fp=$!
sleep 2  # framepipe listens before the sender starts: no frame is lost to a late start
start_sender
nvidia-smi --query-gpu=utilization.gpu,utilization.decoder,memory.used --format=csv,noheader,nounits -lms 1000 >gpu.csv &
smi=$!
t0=$(date +%s.%N)
sleep "$seconds"
cpu=$(cpu_seconds $fp)
kill -INT $fp
wait $fp
rc=$?
t1=$(date +%s.%N)
kill $smi $sender 2>/dev/null
wait $smi $sender 2>/dev/null
[ $rc -eq 130 ] || { echo "live-bench: framepipe exit $rc (expected 130 after SIGINT)"; tail -20 framepipe.log; status=1; }
wall=$(awk "BEGIN { print $t1 - $t0 }")

# 3. FFmpeg on the same stream: CPU nlmeans (patch 7, research window 21 as framepipe's) and
# a box blur, x264 zerolatency; it reads what it can keep up with, the rest overruns.
start_sender
f0=$(date +%s.%N)
timeout -s INT "$((ffmpeg_seconds + 5))" ffmpeg -hide_banner -nostats -loglevel info -y \
  -i "$url?fifo_size=1000000&overrun_nonfatal=1" -t "$ffmpeg_seconds" \
  -vf "nlmeans=s=10:p=7:r=21,boxblur=2" -c:v libx264 -preset veryfast -tune zerolatency -f mpegts ffmpeg-out.ts >ffmpeg.log 2>&1 &
ff=$!
wait $ff
ffmpeg_wall=$(awk "BEGIN { print $(date +%s.%N) - $f0 }")
kill $sender 2>/dev/null
wait $sender 2>/dev/null
# Its own count of the frames it encoded (the last "frame=" of its log).
ffmpeg_frames=$(grep -o 'frame= *[0-9]*' ffmpeg.log | tail -1 | tr -dc '0-9')
ffmpeg_speed=$(grep -o 'speed=[ 0-9.x]*' ffmpeg.log | tail -1)

python3 - "$wall" "$cpu" "$ffmpeg_wall" "${ffmpeg_frames:-0}" "$ffmpeg_speed" <<'EOF' | tee summary.txt
import json, sys
wall, cpu, ff_s, ff_frames, ff_speed = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
s = json.load(open("stats.json"))
gpu = [l.split(",") for l in open("gpu.csv") if l.strip()]
util = [float(g[0]) for g in gpu]; dec = [float(g[1]) for g in gpu]; mem = [float(g[2]) for g in gpu]
src = s["stages"][0]
lat = s["latency_ms"]
print(f"framepipe, {wall:.0f} s of a 1080p30 noisy H.264 stream over UDP, 5 GPU stages + x264 (latency: low):")
print(f"  frames {s['frames']} ({s['frames'] / wall:.1f} fps), dropped {s['frames_dropped']}, damaged packets {src['decode_errors']['damaged_packets']}")
print(f"  latency p50 {lat['p50']:.1f} ms, p95 {lat['p95']:.1f} ms, p99 {lat['p99']:.1f} ms, max {lat['max']:.1f} ms")
print(f"  CPU {cpu / wall * 100:.0f}% of one core; GPU busy {sum(util) / max(len(util), 1):.0f}% (max {max(util, default=0):.0f}%), "
      f"GPU memory {max(mem, default=0):.0f} MiB")
for st in s["stages"]:
    print(f"    {st['id']:<8} {st['type']:<15} {st['frames']:>6} frames {st['mean_ms']:8.3f} ms/frame")
print(f"ffmpeg, {ff_s:.0f} s (wall) of the same stream, CPU nlmeans + boxblur + x264 zerolatency: "
      f"{ff_frames} frames ({ff_frames / ff_s:.1f} fps of 30 sent), {ff_speed}")
EOF
if [ -n "${OUT:-}" ]; then cp summary.txt stats.json framepipe.log ffmpeg.log "$OUT/" 2>/dev/null; fi
exit $status
