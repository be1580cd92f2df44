#!/usr/bin/env bash
# The denoise-quality measurement of issue 34 §3: how much temporal_nlmeans (framepipe's
# NL-means over the current frame and motion-compensated windows of K previous frames) gains
# over spatial nlmeans, and how it compares with FFmpeg's temporal denoisers hqdn3d and
# atadenoise, in PSNR, SSIM and flicker, on a synthetic set that the project makes itself (no
# downloads): 7 sequences of 40 frames 960x540 (pans of 2,1 / 8,3 / 40,0 px a frame, a slow
# zoom, independently moving objects, a still image, a scene cut), each with Gaussian noise of
# sigma 10, 20 and 30, from fixed seeds (tools/denoise_quality/synthetic_set.hpp). Every method
# runs over a grid of strengths; per method and sigma the one setting with the best PSNR
# averaged over the 7 sequences is reported (the rule is printed in the results).
#
# Reproduce (the GPU part on a machine with CUDA, the rest anywhere with ffmpeg):
#   tools/denoise-quality.sh gpu BUILD_DIR OUT_DIR     # make-set into a temporary folder, then
#                                                      # `matrix --device cuda:0`: OUT_DIR/denoise-gpu.json
#   tools/denoise-quality.sh cpu BUILD_DIR OUT_DIR     # make-set, then `ffmpeg-matrix` with the
#                                                      # system's ffmpeg: OUT_DIR/denoise-ffmpeg.json
#   tools/denoise-quality.sh table GPU.json FFMPEG.json OUT.md   # the markdown report
# BUILD_DIR is a framepipe build (bin/denoise-quality; CUDA on for `gpu`). Both JSON files
# record the set's checksum, so the table warns when the two were measured on different bytes.
# Environment: DQ_DEVICE (default cuda:0) for `gpu`; FFMPEG (default ffmpeg) for `cpu`;
# DQ_BIN for `table` (default: build/bin/denoise-quality or build-*/bin/denoise-quality of this
# tree, else PATH's); TMPDIR for the set (about 560 MB).
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}

[[ $# -ge 1 ]] || usage
mode=$1
shift

binary() {
  local bin=$1/bin/denoise-quality
  [[ -x $bin ]] || { echo "denoise-quality.sh: no $bin (build the target denoise-quality)" >&2; exit 2; }
  echo "$bin"
}

# A set in a fresh temporary folder, removed on exit.
make_set() {
  set_dir=$(mktemp -d "${TMPDIR:-/tmp}/denoise-quality-set.XXXXXX")
  trap 'rm -rf "$set_dir"' EXIT
  "$1" make-set "$set_dir"
}

case $mode in
  gpu)
    [[ $# -eq 2 ]] || usage
    bin=$(binary "$1")
    mkdir -p "$2"
    make_set "$bin"
    "$bin" matrix "$set_dir" --device "${DQ_DEVICE:-cuda:0}" --json "$2/denoise-gpu.json"
    ;;
  cpu)
    [[ $# -eq 2 ]] || usage
    bin=$(binary "$1")
    mkdir -p "$2"
    make_set "$bin"
    "$bin" ffmpeg-matrix "$set_dir" --ffmpeg "${FFMPEG:-ffmpeg}" --json "$2/denoise-ffmpeg.json"
    ;;
  table)
    [[ $# -eq 3 ]] || usage
    # Any build's binary reads the JSON: this script's own tree's build, else PATH's.
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    bin=${DQ_BIN:-}
    for candidate in "$root"/build/bin/denoise-quality "$root"/build-*/bin/denoise-quality; do
      [[ -z $bin && -x $candidate ]] && bin=$candidate
    done
    bin=${bin:-denoise-quality}
    "$bin" table "$1" "$2" --markdown "$3"
    ;;
  *)
    usage
    ;;
esac
