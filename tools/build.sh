#!/usr/bin/env bash
# Installs what is missing (tools/setup.sh), then configures and builds into build/.
# Extra arguments go to CMake's configure step, e.g. -DFRAMEPIPE_CUDA=OFF.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/setup.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$root/build" -j"$(nproc)"
