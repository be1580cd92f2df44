#!/usr/bin/env bash
# The N slowest tests of BUILD_DIR's ctest runs (default 20), slowest first, in seconds, from
# ctest's own cost data (Testing/Temporary/CTestCostData.txt: "NAME RUNS AVERAGE-SECONDS" a
# line, then "---" and the names that failed): where a step's test time goes.
#   tools/slowest-tests.sh BUILD_DIR [N]
set -euo pipefail
data=$1/Testing/Temporary/CTestCostData.txt
count=${2:-20}
[ -f "$data" ] || { echo "no ctest cost data in $1"; exit 0; }
awk '/^---/ { exit } NF == 3 { printf "%8.1f s  %s\n", $3, $1 }' "$data" | sort -rn | head -n "$count"
