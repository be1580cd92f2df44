#!/usr/bin/env bash
# Configures a CMake preset (CMakePresets.json), extra arguments passed on. A build folder
# configured earlier with another compiler (build-asan was GCC's before the asan preset moved
# to Clang, to share its build with the fuzz targets) has its cache dropped first: CMake
# cannot change the compiler of a configured folder.
#   tools/configure-preset.sh asan -DFRAMEPIPE_CHILD_PROCESS_TESTS_FROM=build
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
preset=${1:?usage: tools/configure-preset.sh PRESET [CMAKE-ARGS...]}
shift
dir="build-$preset"
[ "$preset" != release ] || dir=build
wanted=$(python3 -c 'import json,sys; p=[p for p in json.load(open("CMakePresets.json"))["configurePresets"] if p["name"]==sys.argv[1]]; print(p[0]["cacheVariables"].get("CMAKE_CXX_COMPILER", "") if p else "")' "$preset")
if [ -n "$wanted" ] && [ -f "$dir/CMakeCache.txt" ]; then
  have=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$dir/CMakeCache.txt")
  if [ "$(basename "$have")" != "$wanted" ]; then
    echo "configure-preset: $dir was configured with $have, the preset asks for $wanted: its cache is dropped"
    rm -rf "$dir/CMakeCache.txt" "$dir/CMakeFiles"
  fi
fi
cmake --preset "$preset" "$@"
