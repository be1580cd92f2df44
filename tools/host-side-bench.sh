#!/usr/bin/env bash
# The host side of NVDEC frames, several framepipe builds side by side in one run on one GPU
# (issue 31: a kernel and a copy fewer when no stage reads chroma). N camera-like 1080p30
# H.264 streams (made with ffmpeg: source .gpudeps/env.sh) decoded on NVDEC through
# tools/five-stages.yaml in one process:
#   hist  the five stages, the histogram the only output (no chroma leaves the GPU);
#   x264  the same plus one x264 output of the denoised frames, whose chroma is the source's
#         (no stage reads or writes it): it goes to the encoder.
# Each build runs each row ROUNDS times, in turn with the others, so that clocks and
# neighbours weigh on all alike. Per run: frames/s over the wall time, the process's CPU
# (user + sys) a frame, and from --stats-json the bytes across PCIe and framepipe's own
# threads' CPU a frame.
#   tools/host-side-bench.sh FRAMEPIPE...   (env: HIST_STREAMS 32, X264_STREAMS 8, FRAMES 300,
#   ROUNDS 2, PRESET veryfast, DEVICE cuda:0; SIZE 1920x1080 and DECODER nvdec, which only a
#   check of the script itself changes)
# Prints one line per run, then a table of medians; exits non-zero when a run fails.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 FRAMEPIPE..." >&2; exit 2; }
command -v ffmpeg >/dev/null || { echo "host-side-bench: needs ffmpeg (source .gpudeps/env.sh)" >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
builds=()
for fp in "$@"; do builds+=("$(realpath "$fp")"); done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
frames=${FRAMES:-300}
# As stream-bench's camera clip: testsrc2 with temporal noise, GOP 2 s, no B-frames, 8 Mb/s.
ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=${SIZE:-1920x1080}:rate=30" -frames:v "$frames" \
  -vf "noise=alls=20:allf=t" -c:v libx264 -preset veryfast -g 60 -bf 0 -b:v 8M -maxrate 8M -bufsize 16M \
  -pix_fmt yuv420p camera.mp4 || exit 1
cp "$here/five-stages.yaml" hist.yaml
cp "$here/five-stages.yaml" x264.yaml
echo "  - {id: out, type: encode, input: denoise, output: '{stream}.mp4', preset: ${PRESET:-veryfast}, crf: 18}" >>x264.yaml
status=0
: >results.txt
for row in hist x264; do
  n=$([ "$row" = hist ] && echo "${HIST_STREAMS:-32}" || echo "${X264_STREAMS:-8}")
  args=()
  for ((i = 0; i < n; ++i)); do args+=(-i camera.mp4); done
  for ((r = 1; r <= ${ROUNDS:-2}; ++r)); do
    for fp in "${builds[@]}"; do
      rm -f ./*-*.mp4 stats.json
      # The process's own CPU: what its children used, from getrusage.
      line=$(python3 - "$fp" run "$row.yaml" "${args[@]}" --decoder "${DECODER:-nvdec}" --device "${DEVICE:-cuda:0}" -q \
        --stats-json stats.json <<'PY'
import json, resource, subprocess, sys, time
t0 = time.monotonic()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=open("run.log", "w")).returncode
wall = time.monotonic() - t0
use = resource.getrusage(resource.RUSAGE_CHILDREN)
if rc != 0:
    print(f"failed {rc}")
    sys.exit(0)
s = json.load(open("stats.json"))
streams = s.get("streams", [s])  # one stream's stats, or each of several streams'
frames = sum(t["frames"] for t in streams)
host = {k: sum(t["host"][k] for t in streams) for k in ("bytes_uploaded", "bytes_downloaded", "cpu_ms")}
print(f"{frames} {frames / wall:.1f} {1000 * (use.ru_utime + use.ru_stime) / frames:.2f} "
      f"{host['bytes_uploaded'] / frames:.0f} {host['bytes_downloaded'] / frames:.0f} {host['cpu_ms'] / frames:.3f} "
      f"{use.ru_maxrss}")
PY
)
      case $line in
        failed*) echo "$fp $row N=$n: $line"; tail -5 run.log; status=1; continue ;;
      esac
      read -r got fps cpu up down own rss <<<"$line"
      echo "$fp $row N=$n round $r: $got frames, $fps fps, process CPU $cpu ms/frame, up $up B/frame, down $down B/frame, framepipe threads $own ms/frame, max RSS $((rss / 1024)) MB"
      echo "$fp $row $n $fps $cpu $up $down $own $rss" >>results.txt
    done
  done
done
echo
python3 - results.txt <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    fp, row, n, *values = line.split()
    rows.setdefault((row, int(n), fp), []).append([float(v) for v in values])
print("| row | streams | build | fps | process CPU ms/frame | up B/frame | down B/frame | framepipe threads ms/frame | max RSS MB |")
print("|---|---|---|---|---|---|---|---|---|")
for (row, n, fp), runs in rows.items():
    m = [statistics.median(column) for column in zip(*runs)]
    print(f"| {row} | {n} | {fp} | {m[0]:.0f} | {m[1]:.2f} | {m[2]:.0f} | {m[3]:.0f} | {m[4]:.3f} | {m[5] / 1024:.0f} |")
PY
exit $status
