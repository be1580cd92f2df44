#!/usr/bin/env bash
# Regenerates the media_decode seed corpus: tiny videos (32x24, 2-3 frames; a few hundred
# bytes to a few KB each) in the containers and codecs framepipe reads. Needs Debian's
# ffmpeg command-line tool (`apt-get install ffmpeg`), which only this script uses: the
# build and the fuzzers need the libraries alone. The committed seeds were made with it.
set -euo pipefail
out=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/corpus/media_decode
mkdir -p "$out"
cd "$out"
ff() { ffmpeg -nostdin -v error -y "$@"; }
src=(-f lavfi -i testsrc2=size=32x24:rate=10 -frames:v 3)
x264=(-c:v libx264 -preset ultrafast -g 3 -bf 1 -x264-params log-level=error)
ff "${src[@]}" "${x264[@]}" h264.mp4
ff "${src[@]}" "${x264[@]}" -movflags +faststart h264_faststart.mp4
ff "${src[@]}" "${x264[@]}" h264.mkv
ff "${src[@]}" "${x264[@]}" -f mpegts h264.ts
ff "${src[@]}" "${x264[@]}" -bsf:v h264_mp4toannexb -f h264 annexb.h264
ff "${src[@]}" -c:v libx264 -preset ultrafast -pix_fmt yuv420p10le -x264-params log-level=error h264_10bit.mkv
ff -f lavfi -i testsrc2=size=17x13:rate=10 -frames:v 2 -c:v libx264 -preset ultrafast -pix_fmt yuv444p \
  -x264-params log-level=error h264_444_odd.mp4
ff -f lavfi -i testsrc2=size=16x12:rate=10 -frames:v 2 -pix_fmt yuv420p rawvideo.y4m
ff -f lavfi -i testsrc2=size=9x7:rate=10 -frames:v 2 -pix_fmt yuv444p odd_444.y4m
ff "${src[@]}" -c:v libx265 -preset ultrafast -x265-params log-level=error hevc.mkv
ff "${src[@]}" -c:v libvpx-vp9 -deadline realtime -cpu-used 8 vp9.webm
ff "${src[@]}" -c:v mpeg2video mpeg2.mpg
ff "${src[@]}" -c:v mpeg4 -q:v 31 mpeg4.avi
ff "${src[@]}" -c:v mjpeg -q:v 31 mjpeg.avi
ff -f lavfi -i testsrc2=size=32x24:rate=10 -f lavfi -i sine=d=0.3:sample_rate=8000 -frames:v 3 "${x264[@]}" -c:a aac -b:a 8k -shortest av.mp4
ff -f lavfi -i sine=d=0.2:sample_rate=8000 -c:a aac -b:a 8k audio_only.m4a
ls -l "$out"
