#!/usr/bin/env bash
# Adds what `framepipe serve` links (Debian's cpp-httplib and prometheus-cpp, and brotli,
# which cpp-httplib needs) to the folder that ../shared/tools/build-gpu-deps made, so a
# build configured on the GPU machine finds them there: that machine has no registry and
# no package manager of its own. Same /usr layout as build-gpu-deps, so the CMake package
# files keep finding themselves.
#   tools/gpu-service-deps.sh [PREFIX]     (default .gpudeps; run build-gpu-deps first)
set -euo pipefail
PREFIX=$(realpath -m "${1:-.gpudeps}")
[ -f "$PREFIX/env.sh" ] || { echo "gpu-service-deps: $PREFIX/env.sh missing: run ../shared/tools/build-gpu-deps first" >&2; exit 2; }
# cpp-httplib's headers include OpenSSL's, zlib's and brotli's (Debian builds it with all
# three), and its pkg-config file requires theirs.
# The pull and push libraries are never linked, but prometheus-cpp's CMake package file
# names them, and CMake refuses an imported target whose file is missing.
packages="libcpp-httplib-dev libcpp-httplib0.11 prometheus-cpp-dev libprometheus-cpp-core1.0
  libprometheus-cpp-pull1.0 libprometheus-cpp-push1.0 libbrotli1 libbrotli-dev libssl-dev libssl3
  zlib1g-dev"
missing=$(for p in $packages; do dpkg -s "$p" >/dev/null 2>&1 || echo "$p"; done)
if [ -n "$missing" ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null; fi
for p in $packages; do
  dpkg -L "$p" | while read -r f; do
    { [ -f "$f" ] || [ -L "$f" ]; } || continue
    case "$f" in
      /usr/include/*) d="include/${f#/usr/include/}" ;;
      /usr/lib/x86_64-linux-gnu/*) d="lib/x86_64-linux-gnu/${f#/usr/lib/x86_64-linux-gnu/}" ;;
      *) continue ;;
    esac
    mkdir -p "$(dirname "$PREFIX/$d")" && cp -a "$f" "$PREFIX/$d"
  done
done
# Debian's pkg-config files say prefix=/usr: make the copies find themselves, wherever the
# folder is carried to.
sed -i 's|^prefix=/usr$|prefix=${pcfiledir}/../../..|' "$PREFIX"/lib/x86_64-linux-gnu/pkgconfig/*.pc
echo "gpu-service-deps: cpp-httplib and prometheus-cpp added to $PREFIX"
