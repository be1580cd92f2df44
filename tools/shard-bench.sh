#!/usr/bin/env bash
# Streams sharded over GPUs as pods would shard them (issue 20, section 5), on a GPU machine
# with two or more GPUs (nvidia-h100-x2): one `framepipe serve` per GPU (--device cuda:I,
# --shard I/N), all reading one --stream-list of STREAMS paced camera-like 1080p30 H.264
# streams (NVDEC, the five stages, a histogram file each: tools/serve-bench.sh's clip and
# template). Once every stream runs (each on one process), SECONDS_MEASURED are measured; per
# process: streams assigned and running, frames, drops, p99 latency (the recent window and
# the whole run), GPU memory and RSS. Checks: each takes ~1/N (rendezvous over N), 0 drops,
# every stream's p99 <= 100 ms (tools/shard_bench.py watches and reports).
#
#   tools/shard-bench.sh
# Environment: STREAMS (64), SECONDS_MEASURED (60), DEVICES ("cuda:0 cuda:1": one process
# each). To try it without a GPU: DEVICE=cpu DECODER=software SIZE=320x240 STREAMS=4 (DEVICE
# sets every process's device; REPLICAS, default 2, how many). Needs a CUDA build in
# build-gpu/ (tools/gpu-check.sh makes it) or FRAMEPIPE=path, and .gpudeps/. Writes
# build-gpu/shard-bench/ (and shard-bench.{md,json}, the servers' logs into $OUT when set).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
framepipe=${FRAMEPIPE:-$root/build-gpu/bin/framepipe}
work=${WORK:-$root/build-gpu/shard-bench}
streams=${STREAMS:-64}
seconds=${SECONDS_MEASURED:-60}
decoder=${DECODER:-nvdec}
size=${SIZE:-1920x1080}
if [ -n "${DEVICE:-}" ]; then
  read -ra devices <<<"$(for _ in $(seq "${REPLICAS:-2}"); do printf '%s ' "$DEVICE"; done)"
else
  read -ra devices <<<"${DEVICES:-cuda:0 cuda:1}"
fi
replicas=${#devices[@]}
[ -f "$root/.gpudeps/env.sh" ] && source "$root/.gpudeps/env.sh"
[ -x "$framepipe" ] || { echo "shard-bench: no framepipe at $framepipe" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "shard-bench: needs ffmpeg (source .gpudeps/env.sh)" >&2; exit 1; }
mkdir -p "$work"
cd "$work" || exit 1
source "$root/tools/serve-bench-common.sh"
make_camera_clip "$size" || exit 1
# The template's own device is the first process's; each process's --device decides.
write_camera_pipeline camera.yaml "${devices[0]}" "$decoder"

# The one list every process reads, as a ConfigMap mounted in every pod.
{
  echo "streams:"
  for i in $(seq 0 $((streams - 1))); do
    printf '  - {name: cam%02d, uri: "%s"}\n' "$i" "$work/live.mp4"
  done
} >streams.yaml

pids=()
servers=()
stop_all() {
  local status=0 pid
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" || { echo "shard-bench: a server's drain failed (pid $pid)"; status=1; }; done
  return $status
}
for i in $(seq 0 $((replicas - 1))); do
  rm -rf "out-$i" && mkdir -p "out-$i"
  # --max-streams: every stream of the list could land here; none may wait for capacity.
  start_serve "$framepipe" "serve-$i.log" camera.yaml --device "${devices[$i]}" --shard "$i/$replicas" \
    --stream-list streams.yaml --allow-root "$work" --output-root "$work/out-$i" --max-streams "$streams" ||
    { stop_all; exit 1; }
  pids+=("$server_pid")
  servers+=(--server "$server_url,$server_pid,${devices[$i]}")
done

python3 "$root/tools/shard_bench.py" "${servers[@]}" --streams "$streams" --seconds "$seconds" --out "$work"
status=$?
stop_all || status=1
for i in $(seq 0 $((replicas - 1))); do tail -2 "serve-$i.log"; done
if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  cp shard-bench.md shard-bench.json shard-bench-events.txt serve-*.log "$OUT/" 2>/dev/null
fi
exit $status
