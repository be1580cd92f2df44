#!/usr/bin/env bash
# Live check of temporal_nlmeans on a GPU machine (issue 34, section 4): STREAMS camera-like
# 1080p30 H.264 streams paced at 30 fps (--realtime --drop oldest: a stream that falls behind
# drops frames, as a camera's would), NVDEC, through the five stages of tools/five-stages.yaml
# with temporal_nlmeans (frames 2, motion block) in place of nlmeans, for SECONDS_LIVE; then, in
# the same run and on the same clip, the five stages as they are (spatial nlmeans). Reports
# frames, frames dropped and the worst stream's latency p50/p99/max for each.
#
#   tools/temporal-live-bench.sh            environment: STREAMS (10), SECONDS_LIVE (60), FRAMEPIPE
# Needs a CUDA build (FRAMEPIPE, default build-gpu/bin/framepipe) and .gpudeps/ (FFmpeg with
# NVDEC, lavfi and libx264). Writes build-gpu/temporal-live/ and, when set, $OUT/temporal-live.json.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
framepipe=${FRAMEPIPE:-$root/build-gpu/bin/framepipe}
streams=${STREAMS:-10}
seconds=${SECONDS_RUN:-${SECONDS_LIVE:-60}}
work=$root/build-gpu/temporal-live
# shellcheck disable=SC1091
[ -f "$root/.gpudeps/env.sh" ] && source "$root/.gpudeps/env.sh"
mkdir -p "$work"
cd "$work" || exit 1
[ -x "$framepipe" ] || { echo "temporal-live-bench: no framepipe at $framepipe" >&2; exit 1; }

# testsrc2 moves (a pan of shapes and a counter), with sensor-like noise: what temporal
# denoising is for. GOP 2 s, no B-frames, 8 Mb/s, as cameras send; looped to cover the run.
if [ ! -s camera.mp4 ]; then
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30" -frames:v 600 \
    -vf "noise=alls=20:allf=t" -c:v libx264 -preset veryfast -g 60 -bf 0 -pix_fmt yuv420p \
    -b:v 8M -maxrate 8M -bufsize 16M clip.mp4 &&
    ffmpeg -hide_banner -loglevel error -y -stream_loop $(((seconds + 19) / 20)) -i clip.mp4 -c copy camera.mp4 ||
    { echo "temporal-live-bench: cannot make the clip" >&2; exit 1; }
fi
cp "$root/tools/five-stages.yaml" spatial.yaml
sed 's/type: nlmeans, input: input, h: 10, patch: 7, search: 21/type: temporal_nlmeans, input: input, h: 10, patch: 7, search: 21, frames: 2/' \
  "$root/tools/five-stages.yaml" >temporal.yaml
grep -q temporal_nlmeans temporal.yaml || { echo "temporal-live-bench: five-stages.yaml changed: cannot swap its nlmeans" >&2; exit 1; }

status=0
inputs=()
for ((i = 0; i < streams; ++i)); do inputs+=(-i camera.mp4); done
for what in temporal spatial; do
  "$framepipe" run "$what.yaml" "${inputs[@]}" --device cuda:0 --decoder nvdec --realtime --drop oldest \
    --frames $((seconds * 30)) -q --stats-json "$what.json" >"$what.log" 2>&1 ||
    { echo "temporal-live-bench: $what: framepipe failed"; tail -5 "$what.log"; status=1; }
done
python3 - "$streams" "$seconds" <<'PY' || status=1
import json, sys
streams, seconds = int(sys.argv[1]), int(sys.argv[2])
report = {"streams": streams, "seconds": seconds, "runs": {}}
for what in ("temporal", "spatial"):
    try:
        stats = json.load(open(f"{what}.json"))
    except OSError:
        continue
    per = stats.get("streams", [stats])
    worst = lambda key: max(s["latency_ms"][key] for s in per)
    row = {"frames": stats.get("frames"), "dropped": stats.get("frames_dropped", 0),
           "dropped_per_stream": [s.get("frames_dropped", 0) for s in per],
           "latency_ms_worst_stream": {k: worst(k) for k in ("p50", "p99", "max")}}
    report["runs"][what] = row
    print(f"{what:9s} {streams} streams x {seconds} s: {row['frames']} frames, {row['dropped']} dropped, "
          f"latency p50/p99/max (worst stream) {worst('p50'):.1f} / {worst('p99'):.1f} / {worst('max'):.1f} ms")
json.dump(report, open("temporal-live.json", "w"), indent=1)
PY
[ -n "${OUT:-}" ] && cp temporal-live.json temporal.log spatial.log "$OUT/" 2>/dev/null
exit $status
