# shellcheck shell=bash
# Sourced by the service benchmarks (tools/serve-bench.sh, tools/shard-bench.sh): the
# camera-like clip every stream reads, the template they run, and starting a server.
# Functions only; the caller has set `set -uo pipefail` and cd'ed into its work folder.

# The clip, made once in the current folder: 40 s of camera-like video (noise as a dim
# sensor, GOP 2 s, no B-frames, 8 Mb/s) copied 9 times over into live.mp4: 6 minutes,
# longer than any benchmark, so no stream ends.
make_camera_clip() {  # SIZE (WxH)
  [ -s live.mp4 ] && return 0
  ffmpeg -hide_banner -loglevel error -y -f lavfi -i "testsrc2=size=$1:rate=30,noise=alls=20:allf=t" \
    -frames:v 1200 -c:v libx264 -preset veryfast -g 60 -bf 0 -b:v 8M -maxrate 8M -bufsize 16M \
    -pix_fmt yuv420p camera.mp4 || return 1
  ffmpeg -hide_banner -loglevel error -y -stream_loop 8 -i camera.mp4 -c copy live.mp4
}

# The template: paced as a camera, dropping the oldest frame when behind, the five stages
# and a histogram file per stream.
write_camera_pipeline() {  # FILE DEVICE DECODER
  cat >"$1" <<YAML
device: $2
realtime: true
drop: oldest
stages:
  - {id: input,   type: decode, uri: live.mp4, decode: $3}
  - {id: hist,    type: luma_histogram, output: "{stream}-hist.jsonl"}
  - {id: denoise, type: nlmeans, input: input, h: 10, patch: 7, search: 21}
  - {id: fused,   type: pyramid_fusion, inputs: [input, denoise], levels: 5, rule: max_energy}
  - {id: smooth,  type: mean_smooth, input: input, radius: 2}
  - {id: skel,    type: thinning, input: smooth, threshold: otsu}
YAML
}

# Starts `framepipe serve ARGS... --listen 127.0.0.1:0` in the background with its output in
# LOG; sets server_pid and server_url (http://127.0.0.1:PORT), or fails showing the log.
start_serve() {  # FRAMEPIPE LOG ARGS...
  local framepipe=$1 log=$2
  shift 2
  "$framepipe" serve "$@" --listen 127.0.0.1:0 >"$log" 2>&1 &
  server_pid=$!
  server_url=
  for _ in $(seq 100); do
    server_url=$(grep -o 'http://[0-9.:]*' "$log" | head -1)
    [ -n "$server_url" ] && return 0
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "the server did not start ($log):" >&2
  cat "$log" >&2
  kill "$server_pid" 2>/dev/null
  return 1
}
