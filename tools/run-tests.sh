#!/usr/bin/env bash
# Quick start: set up, build, and run every test (CI runs this). GPU tests skip themselves
# when no GPU is present; the reasons for every skip are printed at the end.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/tools/build.sh"
cd "$root/build"
status=0
ctest --output-on-failure -j"$(nproc)" "$@" || status=$?
if grep -q ': Skipped$' Testing/Temporary/LastTest.log 2>/dev/null; then
  echo "Skipped tests and why:"
  grep -h -A1 ': Skipped$' Testing/Temporary/LastTest.log | grep -v -e '^--$' -e ': Skipped$' | sort | uniq -c
fi
exit $status
