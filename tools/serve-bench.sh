#!/usr/bin/env bash
# `framepipe serve` under churn, on a GPU machine (issue 19, section 3): one server, STREAMS
# paced camera-like 1080p30 H.264 streams (NVDEC, the five stages, a histogram file each)
# added one by one through the API, then CHURN of them removed and added again ROUNDS times
# while the others run, then CYCLES add/remove cycles of one more stream. Reports the
# untouched streams' drops and p99 latency (churn against quiet), GPU memory after each
# removal and over the cycles, and the server's RSS (tools/serve_bench.py does the driving).
#
#   tools/serve-bench.sh
# Environment: STREAMS (32), CHURN (8), ROUNDS (10), CYCLES (100); CHURN_URI (the churned
# streams' input, e.g. testsrc://1920x1080@30?noise=20: no decoder to open); DEVICE (cuda:0) and
# DECODER (nvdec) only to try the script without a GPU (DEVICE=cpu DECODER=software, with
# small SIZE=320x240). Needs a CUDA build in build-gpu/ (tools/gpu-check.sh makes it) or
# FRAMEPIPE=path, and .gpudeps/. Writes build-gpu/serve-bench/ (and $OUT when set).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
framepipe=${FRAMEPIPE:-$root/build-gpu/bin/framepipe}
work=${WORK:-$root/build-gpu/serve-bench}
streams=${STREAMS:-32}
churn=${CHURN:-8}
rounds=${ROUNDS:-10}
cycles=${CYCLES:-100}
device=${DEVICE:-cuda:0}
decoder=${DECODER:-nvdec}
size=${SIZE:-1920x1080}
[ -f "$root/.gpudeps/env.sh" ] && source "$root/.gpudeps/env.sh"
[ -x "$framepipe" ] || { echo "serve-bench: no framepipe at $framepipe" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "serve-bench: needs ffmpeg (source .gpudeps/env.sh)" >&2; exit 1; }
mkdir -p "$work/out"
cd "$work" || exit 1

# The clip: 40 s of camera-like video (noise as a dim sensor, GOP 2 s, no B-frames, 8 Mb/s),
# copied 9 times over: 6 minutes, longer than the whole benchmark, so no stream ends.
if [ ! -s live.mp4 ]; then
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=$size:rate=30,noise=alls=20:allf=t" \
    -frames:v 1200 -c:v libx264 -preset veryfast -g 60 -bf 0 -b:v 8M -maxrate 8M -bufsize 16M \
    -pix_fmt yuv420p camera.mp4 || exit 1
  ffmpeg -hide_banner -loglevel error -y -stream_loop 8 -i camera.mp4 -c copy live.mp4 || exit 1
fi

cat >camera.yaml <<EOF
device: $device
realtime: true
drop: oldest
stages:
  - {id: input,   type: decode, uri: live.mp4, decode: $decoder}
  - {id: hist,    type: luma_histogram, output: "{stream}-hist.jsonl"}
  - {id: denoise, type: nlmeans, input: input, h: 10, patch: 7, search: 21}
  - {id: fused,   type: pyramid_fusion, inputs: [input, denoise], levels: 5, rule: max_energy}
  - {id: smooth,  type: mean_smooth, input: input, radius: 2}
  - {id: skel,    type: thinning, input: smooth, threshold: otsu}
EOF

rm -f out/* serve.log
"$framepipe" serve camera.yaml --listen 127.0.0.1:0 --allow-root "$work" --output-root "$work/out" \
  --max-streams $((streams + 8)) >serve.log 2>&1 &
server=$!
url=
for _ in $(seq 100); do
  url=$(grep -o 'http://[0-9.:]*' serve.log | head -1)
  [ -n "$url" ] && break
  sleep 0.1
done
[ -n "$url" ] || { echo "serve-bench: the server did not start" >&2; cat serve.log >&2; kill $server; exit 1; }

python3 "$root/tools/serve_bench.py" --url "$url" --uri "$work/live.mp4" --pipeline camera --pid $server \
  ${CHURN_URI:+--churn-uri "$CHURN_URI"} --out "$work" --streams "$streams" --churn "$churn" --rounds "$rounds" --cycles "$cycles"
status=$?
kill -TERM $server
wait $server || { echo "serve-bench: the server's drain failed"; status=1; }
tail -3 serve.log
if [ -n "${OUT:-}" ]; then
  cp serve-bench.md serve-bench.json serve-bench-events.txt serve.log "$OUT/" 2>/dev/null
fi
exit $status
