#!/usr/bin/env bash
# Installs what is missing (tools/setup.sh), then configures and builds into build/.
# Extra arguments go to CMake's configure step, e.g. -DFRAMEPIPE_CUDA=OFF.
#   FRAMEPIPE_SETUP=--build-only  installs only what building takes (not the tests' servers)
#   FRAMEPIPE_TARGET=framepipe    builds only the program (not the tests)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck disable=SC2086  # FRAMEPIPE_SETUP: setup.sh's options, word by word
"$root/tools/setup.sh" ${FRAMEPIPE_SETUP:-}
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$root/build" -j"$(nproc)" ${FRAMEPIPE_TARGET:+--target "$FRAMEPIPE_TARGET"}
