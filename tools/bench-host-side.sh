#!/bin/bash
# Device batch for issue 21 "host side of a frame": build base (.) and host (.wt/host),
# GPU tests, base-vs-host timing of a 1080p five-stage pipeline, compute-sanitizer.
# Run by the device tool from /work/main's copy (.wt/host = this worktree). Only the four
# stats files come back under $OUT (the tool returns at most 8 files); logs stay in /tmp/L.
set -u
FINAL_OUT=$OUT; OUT=/tmp/L; mkdir -p $OUT
source .gpudeps/env.sh
W=${HOST_TREE:-.wt/host}
cfg() { cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFRAMEPIPE_CUDA=ON > "$OUT/cfg-$3.log" 2>&1; }
(cfg . /tmp/b-base base && cmake --build /tmp/b-base -j8 --target framepipe > "$OUT/build-base.log" 2>&1; echo $? > "$OUT/rc-base") &
(cfg "$W" /tmp/b-host host && cmake --build /tmp/b-host -j8 --target framepipe test_gpu_executor test_gpu_run_monitor > "$OUT/build-host.log" 2>&1; echo $? > "$OUT/rc-host") &
wait
echo "build rc base=$(cat $OUT/rc-base) host=$(cat $OUT/rc-host)"; nvidia-smi --query-gpu=name --format=csv,noheader
[ "$(cat $OUT/rc-host)" = 0 ] || { tail -40 "$OUT/build-host.log"; exit 1; }
/tmp/b-host/bin/test_gpu_executor > "$OUT/test_gpu_executor.log" 2>&1; echo "test_gpu_executor rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED" "$OUT/test_gpu_executor.log" | head
/tmp/b-host/bin/test_gpu_run_monitor > "$OUT/test_gpu_run_monitor.log" 2>&1; echo "test_gpu_run_monitor rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED" "$OUT/test_gpu_run_monitor.log" | head
pipe() { cat > "$1" <<Y
device: cuda
input: testsrc://$2@30?noise=20&frames=$3
stages:
  - {id: hist, type: luma_histogram, output: $4/hist.jsonl}
  - {id: denoise, type: nlmeans, input: input, h: 20, patch: 7, search: 21}
  - {id: fused, type: pyramid_fusion, inputs: [denoise, denoise], levels: 5, rule: average}
  - {id: smooth, type: mean_smooth, input: input, radius: 2}
  - {id: skel, type: thinning, input: smooth, threshold: otsu}
  - {id: out, type: encode, input: fused, output: $4/fused.mp4}
  - {id: skelout, type: encode, input: skel, output: $4/skeleton.mkv}
Y
}
TIMEFORMAT="%U %S %R"
for v in base host base host; do
  [ "$(cat $OUT/rc-$v)" = 0 ] || continue
  mkdir -p /tmp/o-$v; pipe /tmp/p-$v.yaml 1920x1080 200 /tmp/o-$v
  n=$(ls $OUT/s-$v-*.json 2>/dev/null | wc -l)
  { time /tmp/b-$v/bin/framepipe run /tmp/p-$v.yaml --quiet --stats-json $OUT/s-$v-$n.json > $OUT/run-$v-$n.log 2>&1 ; } 2> $OUT/time-$v-$n.txt
  echo "$v run $n: user sys wall = $(cat $OUT/time-$v-$n.txt)"
done
mkdir -p /tmp/o-san; pipe /tmp/p-san.yaml 320x240 8 /tmp/o-san
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  timeout 60 $CS --tool $tool --error-exitcode 3 /tmp/b-host/bin/framepipe run /tmp/p-san.yaml --quiet > $OUT/san-$tool.log 2>&1; echo "$tool rc $?"; tail -2 $OUT/san-$tool.log
done
cp $OUT/s-*.json "$FINAL_OUT"/ 2>/dev/null
for f in $OUT/s-*.json; do echo "$f: $(python3 -c "import json,sys; d=json.load(open('$f')); print(d.get('frames'), d.get('host'))")"; done
