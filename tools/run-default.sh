#!/usr/bin/env bash
# Quick start: set up, build, and run config/default.yaml on the built-in test source.
# Installs only what building and running take, and builds only the program (the tests'
# servers, browser and test binaries are tools/run-tests.sh's). The outputs go to build/out/.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
FRAMEPIPE_SETUP=--build-only FRAMEPIPE_TARGET=framepipe "$root/tools/build.sh"
mkdir -p "$root/build/out"
cd "$root/build/out"
"$root/build/bin/framepipe" run "$root/config/default.yaml" --stats-json stats.json "$@"
echo "outputs are in $root/build/out/"
