#!/bin/sh
# run_installed.sh PROGRAM PACKAGE [ARGS...]: runs PROGRAM ARGS, or, where PROGRAM is not
# installed (the GPU machine has no promtool, prometheus or node), says so and exits 77,
# which ctest counts as a skip (SKIP_RETURN_CODE 77), not a failure.
# CI refuses that skip all the same: tools/check-skips.sh allows only the reasons a CI
# machine may have, and "... is not installed" is not one of them (tools/setup.sh installs
# these programs there).
# Its only skip is here, before anything runs; the exit status after that is the program's
# (the node tests skip only in their own first lines, before they check anything).
program=$1 package=$2
shift 2
if ! command -v "$program" >/dev/null 2>&1; then
  echo "Skipped: $program is not installed (Debian package $package; tools/setup.sh)"
  exit 77
fi
exec "$program" "$@"
