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

source "$root/tools/serve-bench-common.sh"
make_camera_clip "$size" || exit 1
write_camera_pipeline camera.yaml "$device" "$decoder"

rm -f out/* serve.log
start_serve "$framepipe" serve.log camera.yaml --allow-root "$work" --output-root "$work/out" \
  --max-streams $((streams + 8)) || exit 1
server=$server_pid
url=$server_url

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
