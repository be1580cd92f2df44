#!/usr/bin/env bash
# tests/image/debian_base.sh CACHE_DIR: prints the path of a clean Debian 12 root filesystem
# (minbase: Essential, Priority required, apt; bookworm, -updates and -security in its
# sources), a tar built once by mmdebstrap and cached in CACHE_DIR under a hash of what makes
# it. The image test and the package test both start from it, each deriving its own root:
# one mmdebstrap run a build tree (a CI run), not one a test. Needs root and mmdebstrap (the
# callers check). Callers at once wait for each other (flock), so it is built once.
set -euo pipefail
cache=$1
suite=bookworm
mirror=${FRAMEPIPE_IMAGE_MIRROR:-http://deb.debian.org/debian}
security_mirror=${FRAMEPIPE_IMAGE_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
sources=("deb $mirror $suite main" "deb $mirror $suite-updates main" "deb $security_mirror $suite-security main")
key=$(printf '%s\n' minbase "$suite" "${sources[@]}" | sha256sum | cut -c1-16)
tarball=$cache/debian-base-$key.tar
mkdir -p "$cache"
exec 9>"$cache/debian-base.lock"
flock 9
if [ ! -f "$tarball" ]; then
  rm -f "$cache"/debian-base-*.tar  # an older suite's or mirror's
  partial=$cache/debian-base-partial-$$.tar
  trap 'rm -f "$partial"' EXIT
  start=$(date +%s)
  mmdebstrap --quiet --mode=root --variant=minbase --format=tar "$suite" "$partial" "${sources[@]}" >&2 ||
    { echo "debian_base: mmdebstrap could not build the root filesystem (network? $mirror)" >&2; exit 1; }
  mv "$partial" "$tarball"
  # The cache belongs to whoever runs the tests, so that removing the build tree needs no root.
  [ -n "${SUDO_UID:-}" ] && chown "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$tarball" "$cache"
  echo "debian_base: built $tarball in $(($(date +%s) - start)) s" >&2
fi
echo "$tarball"
