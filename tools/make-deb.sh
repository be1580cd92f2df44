#!/usr/bin/env bash
# tools/make-deb.sh [BUILD_DIR] [OUT_DIR]: the .deb of a build (default build/, into OUT_DIR,
# default BUILD_DIR/deb): framepipe_VERSION_ARCH.deb, made by CPack from packaging/ with the
# build's program (stripped), its man page and completion, the example pipelines, the docs
# and the systemd service. Prints the package's path last. Needs dpkg-dev (dpkg-shlibdeps).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
out=${2:-$build/deb}
mkdir -p "$out"
out=$(cd "$out" && pwd)
cmake -S "$root/packaging" -B "$out/cmake" -DFRAMEPIPE_BUILD_DIR="$build" >/dev/null
(cd "$out" && cpack --config "$out/cmake/CPackConfig.cmake" -B "$out" >/dev/null)
deb=$(ls -t "$out"/framepipe_*.deb | head -n 1)
echo "$deb"
