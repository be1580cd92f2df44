#!/usr/bin/env bash
# Many-stream benchmark on a GPU machine: framepipe against FFmpeg on the same files, in the
# same run, and against the limits of the hardware measured in that run.
#
#  1. One stream, clean and camera-like 1080p H.264: FFmpeg decoding to null in software
#     and on NVDEC (-hwaccel cuda), framepipe decoding only (NVDEC and software: decode +
#     the luma histogram, the cheapest graph), and framepipe's five stages (histogram,
#     nlmeans, pyramid fusion, mean smooth, thinning) on NVDEC and in software.
#  2. N camera-like streams in one framepipe process (five stages, NVDEC), N = STREAMS,
#     beside the two limits: NVDEC's capacity for N sessions (N concurrent
#     `ffmpeg -hwaccel cuda -hwaccel_output_format cuda ... -f null`) and the kernels'
#     capacity (the same N streams from testsrc, which needs no decoding). Each row names
#     the lower limit and framepipe's share of it. A stress row: the 108 Mb/s clip.
#     Beside each N: the same run with the graph threads spinning on the GPU
#     (FRAMEPIPE_GPU_WAIT=spin, the default is to sleep) and, on a machine with several
#     GPUs, the streams spread over all of them (--device cuda:all).
#  3. Live: LIVE_STREAMS camera-like streams paced at 30 fps (--realtime; --drop oldest, so
#     that a stream that falls behind drops frames, as a camera's would) through the five
#     stages with a histogram file each, for LIVE_SECONDS: drops, latency, GPU memory and
#     RSS over time; then 4 paced streams with a low-latency x264 output each, of the
#     denoised frames (what a camera pipeline records) and of the fused ones (which keep
#     the noise: x264's hardest case).
# Every figure is wall-clock: frames / seconds from start to exit, for every program alike.
#
#   tools/stream-bench.sh
# Environment: SECTIONS (default "single scaling live": which of 1-3 to run, so that a
# long run can be split over device calls; every section's files go to $OUT as one
# stream-bench-SECTIONS.tgz, for tools/stream_bench_report.py over their joined results),
# STREAMS (default "1 2 4 8 16 32 48"), FRAMES (frames of the 1-stream clips,
# default 1200), BATCH (frames per N-stream measurement in all, default 4800; every stream
# gets at least MIN_PER_STREAM, default 300, since 48 streams take ~3.5 s to start),
# LIVE_STREAMS (32), LIVE_SECONDS (120), ENCODED_SECONDS (30); DEVICE (cuda:0) and DECODER
# (nvdec) only to try the script without a GPU (DEVICE=cpu DECODER=software).
# Needs a CUDA build in build-gpu/ (tools/gpu-check.sh makes it) or FRAMEPIPE=path, and
# .gpudeps/ (FFmpeg with NVDEC). Writes build-gpu/stream-bench/ (and $OUT when set):
# stream-bench.md (the tables), stream-bench.json, stream-bench.svg (the plot).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
framepipe=${FRAMEPIPE:-$root/build-gpu/bin/framepipe}
work=$root/build-gpu/stream-bench
streams_list=${STREAMS:-1 2 4 8 16 32 48}
frames=${FRAMES:-1200}
batch=${BATCH:-4800}
min_per=${MIN_PER_STREAM:-300}
sections=" ${SECTIONS:-single scaling live} "
live_streams=${LIVE_STREAMS:-32}
live_seconds=${LIVE_SECONDS:-120}
encoded_seconds=${ENCODED_SECONDS:-30}
device=${DEVICE:-cuda:0}
decoder=${DECODER:-nvdec}
# shellcheck disable=SC1091
[ -f "$root/.gpudeps/env.sh" ] && source "$root/.gpudeps/env.sh"
mkdir -p "$work"
cd "$work" || exit 1
[ -x "$framepipe" ] || { echo "stream-bench: no framepipe at $framepipe (run tools/gpu-check.sh first)" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "stream-bench: needs ffmpeg (source .gpudeps/env.sh)" >&2; exit 1; }
results=$work/results.jsonl
: >"$results"
status=0

now() { date +%s.%N; }
# record GROUP ROW CLIP STREAMS FRAMES SECONDS [EXTRA_JSON]
record() {
  printf '{"group":"%s","row":"%s","clip":"%s","streams":%s,"frames":%s,"seconds":%s%s}\n' \
    "$1" "$2" "$3" "$4" "$5" "$6" "${7:+,$7}" >>"$results"
  awk -v r="$2" -v c="$3" -v n="$4" -v f="$5" -v s="$6" \
    'BEGIN { printf "  %-26s %-7s N=%-3s %6d frames %7.2f s %8.1f fps\n", r, c, n, f, s, f / s }'
}
stats_frames() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["frames"])' "$1"; }
clip_frames() { ffprobe -v error -count_packets -select_streams v:0 -show_entries stream=nb_read_packets -of csv=p=0 "$1"; }

# 1. The clips (testsrc2 at 1080p30, GOP 2 s, no B-frames, as cameras send).
make_clip() {  # name frames filter rate-control...
  local name=$1 count=$2 filter=$3
  shift 3
  [ -s "$name.mp4" ] && return 0
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=1920x1080:rate=30" -frames:v "$count" \
    ${filter:+-vf "$filter"} -c:v libx264 -preset veryfast -g 60 -bf 0 -pix_fmt yuv420p "$@" "$name.mp4" ||
    { echo "stream-bench: cannot make $name.mp4" >&2; exit 1; }
}
make_clip clean "$frames" "" -b:v 6M -maxrate 6M -bufsize 12M
make_clip camera "$frames" "noise=alls=20:allf=t" -b:v 8M -maxrate 8M -bufsize 16M
make_clip noisy "$((frames / 2))" "noise=alls=20:allf=t" -crf 18
# The live clip: the camera clip three times over (copied, not re-encoded), 2 minutes at 30 fps.
[ -s live.mp4 ] || ffmpeg -hide_banner -loglevel error -y -stream_loop 2 -i camera.mp4 -c copy live.mp4
for c in clean camera noisy; do
  echo "clip $c: $(clip_frames $c.mp4) frames, $(ffprobe -v error -show_entries format=bit_rate -of csv=p=0 $c.mp4 |
    awk '{ printf "%.1f Mb/s", $1 / 1e6 }')"
done

cat >decode.yaml <<'EOF'
device: cuda:0
input: camera.mp4
stages:
  - {id: hist, type: luma_histogram, output: null}
EOF
cp "$root/tools/five-stages.yaml" five.yaml

# framepipe on the given arguments; records its frames (from --stats-json) over wall time.
run_framepipe() {  # group row clip streams args...
  local group=$1 row=$2 clip=$3 n=$4
  shift 4
  local t0 t1
  t0=$(now)
  "$framepipe" run "$@" --device "${RUN_DEVICE:-$device}" -q --stats-json "fp-$row-$clip-$n.json" >"fp-$row-$clip-$n.log" 2>&1 ||
    { echo "  $row $clip N=$n: framepipe failed:"; tail -5 "fp-$row-$clip-$n.log"; status=1; return; }
  t1=$(now)
  record "$group" "$row" "$clip" "$n" "$(stats_frames "fp-$row-$clip-$n.json")" "$(awk "BEGIN { print $t1 - $t0 }")"
}

# N concurrent FFmpeg processes, each decoding `count` frames of `clip` to null.
run_ffmpeg() {  # group row clip streams count hwaccel-args...
  local group=$1 row=$2 clip=$3 n=$4 count=$5
  shift 5
  local t0 t1 pids=() i failed=0
  t0=$(now)
  for ((i = 0; i < n; ++i)); do
    ffmpeg -hide_banner -nostats -loglevel error "$@" -i "$clip.mp4" -frames:v "$count" -f null - \
      >"ff-$row-$clip-$n-$i.log" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || failed=1; done
  t1=$(now)
  [ $failed -eq 0 ] || { echo "  $row $clip N=$n: ffmpeg failed:"; tail -3 "ff-$row-$clip-$n-0.log"; status=1; return; }
  record "$group" "$row" "$clip" "$n" "$((n * count))" "$(awk "BEGIN { print $t1 - $t0 }")"
}

# Frames for each of n streams: BATCH shared out, at least `floor`, at most the clip.
frames_each() {  # n floor
  local each=$((batch / $1))
  [ $each -lt "$2" ] && each=$2
  [ $each -gt "$frames" ] && each=$frames
  echo $each
}

inputs() {  # uri n: -i uri, n times
  local i
  for ((i = 0; i < $2; ++i)); do printf -- '-i\n%s\n' "$1"; done
}

[[ $sections == *" single "* ]] && echo "1. one stream"
[[ $sections == *" single "* ]] && for clip in clean camera; do
  n=$(clip_frames $clip.mp4)
  run_ffmpeg single ffmpeg-software $clip 1 "$n"
  run_ffmpeg single ffmpeg-nvdec $clip 1 "$n" -hwaccel cuda -hwaccel_output_format cuda
  run_framepipe single framepipe-decode-nvdec $clip 1 decode.yaml -i $clip.mp4 --decoder "$decoder"
  run_framepipe single framepipe-decode-software $clip 1 decode.yaml -i $clip.mp4 --decoder software
  run_framepipe single framepipe-five-nvdec $clip 1 five.yaml -i $clip.mp4 --decoder "$decoder"
  run_framepipe single framepipe-five-software $clip 1 five.yaml -i $clip.mp4 --decoder software
done

gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
[[ $sections == *" scaling "* ]] && echo "2. N streams ($gpus GPUs)"
[[ $sections == *" scaling "* ]] && for n in $streams_list; do
  per=$(frames_each "$n" "$min_per")
  mapfile -t args < <(inputs camera.mp4 "$n")
  run_framepipe scaling framepipe-five-nvdec camera "$n" five.yaml "${args[@]}" --decoder "$decoder" --frames "$per"
  run_framepipe scaling framepipe-decode-nvdec camera "$n" decode.yaml "${args[@]}" --decoder "$decoder" --frames "$per"
  # Spinning only up to the cores: beyond them the spinning threads take the CPU from each
  # other and from the decoders (docs/bench/README.md), which says nothing new.
  [ "$n" -le "$(nproc)" ] && FRAMEPIPE_GPU_WAIT=spin run_framepipe scaling framepipe-five-nvdec-spin camera "$n" \
    five.yaml "${args[@]}" --decoder "$decoder" --frames "$per"
  [ "$gpus" -gt 1 ] && [ "$n" -gt 1 ] &&
    RUN_DEVICE=cuda:all run_framepipe scaling framepipe-five-nvdec-all-gpus camera "$n" five.yaml "${args[@]}" \
      --decoder "$decoder" --frames "$per"
  # N FFmpeg processes: BATCH frames in all (at least 100 each), as each process's start-up
  # runs beside the others'; 48 contexts time-sliced decode ~200 fps, so more would only
  # cost minutes.
  run_ffmpeg scaling nvdec-capacity camera "$n" "$(frames_each "$n" 100)" -hwaccel cuda -hwaccel_output_format cuda
  mapfile -t args < <(inputs "testsrc://1920x1080@30?noise=20&frames=$per&loop=30" "$n")
  run_framepipe scaling kernel-capacity testsrc "$n" five.yaml "${args[@]}"
done
if [[ $sections == *" scaling "* ]]; then
  mapfile -t args < <(inputs noisy.mp4 8)
  run_framepipe stress framepipe-five-nvdec noisy 8 five.yaml "${args[@]}" --decoder "$decoder" --frames 300
  run_framepipe stress framepipe-decode-nvdec noisy 8 decode.yaml "${args[@]}" --decoder "$decoder" --frames 300
  run_ffmpeg stress nvdec-capacity noisy 8 300 -hwaccel cuda -hwaccel_output_format cuda
fi

[[ $sections == *" live "* ]] && echo "3. live: $live_streams paced streams for $live_seconds s"
# GPU memory and framepipe's resident memory every 5 s (the first sample after start-up).
sample_memory() {  # pid file
  while kill -0 "$1" 2>/dev/null; do
    printf '%s %s %s\n' "$(date +%s)" "$(nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits | head -1)" \
      "$(awk '/VmRSS/ { print $2 }' "/proc/$1/status" 2>/dev/null)" >>"$2"
    sleep 5
  done
}
live_run() {  # name streams seconds yaml extra-args...
  local name=$1 n=$2 seconds=$3 yaml=$4
  shift 4
  mapfile -t args < <(inputs live.mp4 "$n")
  : >"$name-memory.txt"
  local t0 t1 pid rc
  t0=$(now)
  "$framepipe" run "$yaml" "${args[@]}" --device "$device" --decoder "$decoder" --realtime --drop oldest --frames $((seconds * 30)) -q \
    --stats-json "$name.json" "$@" >"$name.log" 2>&1 &
  pid=$!
  sample_memory $pid "$name-memory.txt" &
  wait $pid
  rc=$?
  t1=$(now)
  [ $rc -eq 0 ] || { echo "  $name: framepipe exit $rc"; tail -5 "$name.log"; status=1; return; }
  record live "$name" camera "$n" "$(stats_frames "$name.json")" "$(awk "BEGIN { print $t1 - $t0 }")" \
    "\"stats\":\"$name.json\",\"memory\":\"$name-memory.txt\""
}
[[ $sections == *" live "* ]] &&
  live_run live-five "$live_streams" "$live_seconds" five.yaml --set 'hist.output=live-{stream}.jsonl'
# The five stages and a low-latency x264 output: of the denoised frames, and of the fused ones.
[[ $sections == *" live "* ]] && for what in denoise fused; do
  { cat five.yaml; echo "  - {id: out,     type: encode, input: $what, output: \"enc-$what-{stream}.ts\", preset: veryfast, latency: low}"; } >"encoded-$what.yaml"
  live_run "live-encoded-$what" 4 "$encoded_seconds" "encoded-$what.yaml"
done

python3 "$root/tools/stream_bench_report.py" "$results" "$("$framepipe" --version | head -1)" "$(nvidia-smi -L | head -1)" ||
  status=1
if [ -n "${OUT:-}" ]; then
  cp stream-bench.md stream-bench.json stream-bench.svg "$OUT/" 2>/dev/null
  # What the report reads (results, framepipe's stats, the memory samples) and the logs.
  name=$(echo $sections | tr ' ' '-')
  tar czf "$OUT/stream-bench-$name.tgz" results.jsonl ./*.json ./*.log ./*-memory.txt 2>/dev/null
fi
exit $status
