#!/usr/bin/env bash
# Makes docs/images/compare.jpg, the picture in the README: one frame of the compare.mp4 that
# the default pipeline writes (input | denoised | skeleton), scaled to 960 pixels wide.
# Runs on the CPU, so any machine with a build and FFmpeg's command-line tool can redo it:
#   tools/readme-picture.sh [path/to/framepipe]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
framepipe=${1:-$root/build/bin/framepipe}
frame=30
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$framepipe" run "$root/config/default.yaml" --device cpu --frames $((frame + 1)) -q)
mkdir -p "$root/docs/images"
ffmpeg -v error -y -i "$work/compare.mp4" -vf "select=eq(n\,$frame),scale=960:-2" -frames:v 1 -q:v 4 \
  "$root/docs/images/compare.jpg"
echo "wrote docs/images/compare.jpg ($(stat -c %s "$root/docs/images/compare.jpg") bytes)"
