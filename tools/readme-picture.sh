#!/usr/bin/env bash
# Makes the README's pictures from one frame of the compare.mp4 that the default pipeline
# writes (input | nlmeans | temporal_nlmeans): docs/images/compare.jpg, the whole frame scaled
# to 960 pixels wide, and docs/images/temporal-crop.jpg, the same 320x180 crop of each third
# side by side at full size, where the noise left by each denoiser shows.
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
# Each third is 640x360 (the default pipeline's source): a crop of its middle.
ffmpeg -v error -y -i "$work/compare.mp4" -filter_complex \
  "[0]select=eq(n\,$frame),split=3[a][b][c];[a]crop=320:180:160:90[a1];[b]crop=320:180:800:90[b1];[c]crop=320:180:1440:90[c1];[a1][b1][c1]hstack=3" \
  -frames:v 1 -q:v 3 "$root/docs/images/temporal-crop.jpg"
for f in compare temporal-crop; do echo "wrote docs/images/$f.jpg ($(stat -c %s "$root/docs/images/$f.jpg") bytes)"; done

