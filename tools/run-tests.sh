#!/usr/bin/env bash
# Quick start: set up, build, and run every test (CI runs this). GPU tests skip themselves,
# saying so, when no GPU is present.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/build.sh"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)" "$@"
