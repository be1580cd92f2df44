#!/usr/bin/env bash
# package_test.sh BUILD_DIR SOURCE_DIR CACHE_DIR
#
# The .deb, installed as a user would on a clean Debian 12 (tools/make-deb.sh of this build):
#   - lintian on the package: no error (every tag is printed);
#   - apt installs it into a clean root filesystem (tests/image/debian_base.sh, shared with the
#     image test), resolving its Depends from the package lists: a dependency that
#     dpkg-shlibdeps missed shows as a library not found;
#   - as the service's user (made by the postinst): framepipe --version; man -l renders the
#     page without a warning; bash, with the installed completion sourced, completes
#     `framepipe st` to `stages` and `framepipe stages nl` to `nlmeans`; the installed default
#     pipeline runs into a temporary folder;
#   - the unit's ExecStart, with /etc/default/framepipe's options as systemd expands them (its
#     --listen moved to a free loopback port), starts serve, which answers /livez and runs a
#     stream put over the API; the unit's ExecReload (systemctl reload: SIGHUP to $MAINPID)
#     makes it read its stream list again and serve on; SIGTERM drains it to exit 0, the
#     stream's output finalized in the state directory;
#   - systemd-analyze verify passes on the installed unit, and systemd-analyze security
#     --offline=true rates its exposure at most FRAMEPIPE_MAX_EXPOSURE (2.5: "OK");
#   - dpkg -r keeps the configuration and state, dpkg -P leaves none of the package's files.
# Not tested here: systemd running the unit (no init in a chroot): systemctl enable, systemd
# itself sending the reload, the sandbox's effect, a GPU.
# Needs root (or sudo without a password), mmdebstrap, lintian and dpkg-dev; without them it
# exits 77 (a skip), which CI refuses (tools/check-skips.sh); past those checks a 77 is a failure.
set -euo pipefail

fail() { echo "package test: FAILED: $*" >&2; exit 1; }

# ---- inside a private mount namespace (the outer part below starts it) ----
if [ "${1:-}" = --inside ]; then
  root=$2 deb=$3 archives=$4 scratch=$5
  # shellcheck source=../image/serve_checks.sh
  . "$(dirname "$0")/../image/serve_checks.sh"
  api() { curl -sS "$@"; }  # serve listens on this machine's loopback: its curl
  mount -t proc proc "$root/proc"
  mount --bind /dev "$root/dev"
  mount -t tmpfs -o mode=1777,size=256m tmpfs "$root/tmp"
  mount --bind "$archives" "$root/var/cache/apt/archives"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp "$deb" "$root/tmp/"
  in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
  # as_user SECONDS COMMAND...: COMMAND as the service's user, in its home, for at most SECONDS.
  as_user() {
    local limit=$1
    shift
    timeout "$limit" chroot --userspec=framepipe:framepipe "$root" /usr/bin/env -i \
      PATH=/usr/bin:/bin HOME=/var/lib/framepipe LANG=C.UTF-8 "$@"
  }

  echo "== apt install ./$(basename "$deb") (and man-db, systemd: the checks' tools)"
  in_root apt-get update -qq || fail "apt-get update in the root failed (network?)"
  DEBIAN_FRONTEND=noninteractive in_root apt-get install -y -qq --no-install-recommends \
    "/tmp/$(basename "$deb")" man-db systemd >"$scratch/apt.log" 2>&1 ||
    { cat "$scratch/apt.log" >&2; fail "apt could not install the package"; }
  in_root dpkg -L framepipe >"$scratch/files" || fail "dpkg -L framepipe"
  in_root getent passwd framepipe || fail "the postinst made no user framepipe"
  [ -d "$root/var/lib/framepipe/outputs" ] || fail "the postinst made no /var/lib/framepipe/outputs"

  echo "== ldd /usr/bin/framepipe"
  libs=$(in_root ldd /usr/bin/framepipe) || fail "ldd: $libs"
  if grep 'not found' <<<"$libs"; then fail "libraries the package's Depends did not bring"; fi

  echo "== framepipe --version (as framepipe)"
  as_user 30 framepipe --version || fail "framepipe --version"

  echo "== man -l framepipe.1.gz"
  warnings=$(as_user 30 sh -c 'MANWIDTH=80 man --warnings -l /usr/share/man/man1/framepipe.1.gz 2>&1 >/dev/null') ||
    fail "man -l failed: $warnings"
  [ -z "$warnings" ] || fail "the man page renders with warnings: $warnings"
  page=$(as_user 30 sh -c 'MANWIDTH=80 man -P cat framepipe 2>/dev/null') || fail "man framepipe"
  for heading in SYNOPSIS COMMANDS "PIPELINE FILES" "EXIT STATUS" FILES; do
    grep -q "^$heading" <<<"$page" || fail "man framepipe has no $heading section"
  done
  grep -q -- "--drain-timeout" <<<"$page" || fail "man framepipe does not list serve's --drain-timeout"

  echo "== bash completion"
  complete_line() {
    as_user 30 bash --norc --noprofile -i -c \
      'source /usr/share/bash-completion/completions/framepipe; COMP_LINE=$1; COMP_POINT=${#1}; _framepipe
       printf "%s\n" "${COMPREPLY[@]}"' bash "$1" 2>/dev/null </dev/null
  }
  got=$(complete_line 'framepipe st') || fail "completion of 'framepipe st' failed"
  [ "$got" = stages ] || fail "'framepipe st' completes to '$got', not 'stages'"
  got=$(complete_line 'framepipe stages nl') || fail "completion of 'framepipe stages nl' failed"
  [ "$got" = nlmeans ] || fail "'framepipe stages nl' completes to '$got', not 'nlmeans'"
  got=$(complete_line 'framepipe serve --drain-t') || fail "completion of an option failed"
  [ "$got" = --drain-timeout ] || fail "'framepipe serve --drain-t' completes to '$got'"
  echo "framepipe st -> stages; framepipe stages nl -> nlmeans; serve --drain-t -> --drain-timeout"

  echo "== the installed default pipeline, into a temporary folder"
  as_user 300 sh -c 'cd "$(mktemp -d)" && framepipe run -q /usr/share/framepipe/pipelines/default.yaml &&
    for f in fused.mp4 skeleton.mkv compare.mp4 histogram.jsonl; do test -s "$f" || exit 3; done' ||
    fail "the default pipeline did not run, or left an output empty"

  echo "== the unit's ExecStart, as the service's user"
  unit=$root/lib/systemd/system/framepipe.service
  exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
  [ -n "$exec_start" ] || fail "the unit has no ExecStart"
  # systemd's expansion: $VAR (unbraced) splits into words; the options from EnvironmentFile.
  # shellcheck disable=SC1090
  command=$(
    set -a
    . "$root/etc/default/framepipe"
    FRAMEPIPE_SERVE_OPTIONS=${FRAMEPIPE_SERVE_OPTIONS/127.0.0.1:8080/127.0.0.1:0}
    eval "printf '%s\n' $exec_start"
  )
  mapfile -t argv <<<"$command"
  grep -qx -- --listen <<<"$command" || fail "ExecStart has no --listen: $command"
  log=$scratch/serve.log
  timeout 60 chroot --userspec=framepipe:framepipe "$root" /usr/bin/env -i PATH=/usr/bin:/bin \
    /bin/sh -c 'cd /var/lib/framepipe && exec "$@"' sh "${argv[@]}" >"$log" 2>&1 &
  serve=$!
  wait_for_serve "$log"
  livez_and_one_stream "$log" 'testsrc://320x240@30?frames=0'
  # To serve itself, once: timeout would pass a signal on twice (to serve, then to its whole
  # group), and a second signal ends serve at once.
  pid=$(pgrep -P "$serve" -x framepipe) || fail "no framepipe process under timeout ($serve)"
  echo "== the unit's ExecReload (systemctl reload), \$MAINPID as systemd gives it"
  exec_reload=$(sed -n 's/^ExecReload=//p' "$unit")
  [ -n "$exec_reload" ] || fail "the unit has no ExecReload"
  eval "${exec_reload//\$MAINPID/$pid}" || fail "ExecReload failed: $exec_reload"
  for _ in $(seq 50); do grep -q "framepipe serve: SIGHUP: " "$log" && break; sleep 0.2; done
  grep -q "framepipe serve: SIGHUP: reading the stream list .* again" "$log" ||
    fail "ExecReload did not make serve read its stream list again: $(tail -n 5 "$log")"
  kill -0 "$pid" 2>/dev/null || fail "serve ended on ExecReload: $(tail -n 5 "$log")"
  kill -TERM "$pid"
  rc=0
  wait "$serve" || rc=$?
  serve=
  cat "$log"
  [ "$rc" -eq 0 ] || fail "serve ended with $rc after SIGTERM (a drain: 0 expected)"
  [ -s "$root/var/lib/framepipe/streams.json" ] || fail "serve kept no state in /var/lib/framepipe"
  probe=$(as_user 30 framepipe probe /var/lib/framepipe/outputs/cam-1.mkv) ||
    fail "the drained stream's output is not a finalized video: $probe"
  echo "$probe"

  echo "== systemd-analyze verify and security"
  out=$(in_root systemd-analyze verify /lib/systemd/system/framepipe.service 2>&1) ||
    { echo "$out" >&2; fail "systemd-analyze verify"; }
  [ -z "$out" ] || { echo "$out" >&2; fail "systemd-analyze verify warns"; }
  security=$(in_root systemd-analyze security --offline=true --no-pager /lib/systemd/system/framepipe.service 2>&1) ||
    { echo "$security" >&2; fail "systemd-analyze security"; }
  exposure=$(sed -n 's/.*Overall exposure level for framepipe.service: \([0-9.]*\).*/\1/p' <<<"$security")
  echo "exposure: $exposure (at most ${FRAMEPIPE_MAX_EXPOSURE:-2.5})"
  [ -n "$exposure" ] || { echo "$security" >&2; fail "no exposure level in systemd-analyze security's output"; }
  awk -v e="$exposure" -v m="${FRAMEPIPE_MAX_EXPOSURE:-2.5}" 'BEGIN { exit !(e <= m) }' ||
    { echo "$security" >&2; fail "the unit's exposure $exposure is above ${FRAMEPIPE_MAX_EXPOSURE:-2.5}"; }

  echo "== dpkg -r, then dpkg -P"
  in_root dpkg -r framepipe >/dev/null || fail "dpkg -r framepipe"
  for kept in /etc/default/framepipe /etc/framepipe/streams.yaml /var/lib/framepipe/streams.json; do
    [ -e "$root$kept" ] || fail "dpkg -r removed $kept (configuration and state stay until a purge)"
  done
  [ ! -e "$root/usr/bin/framepipe" ] || fail "dpkg -r left /usr/bin/framepipe"
  in_root dpkg -P framepipe >/dev/null || fail "dpkg -P framepipe"
  left=()
  while IFS= read -r path; do
    # Its files (a folder such as /lib, a link on a merged /usr, is the system's).
    if { [ -f "$root$path" ] || [ -L "$root$path" ]; } && [ ! -d "$root$path" ]; then left+=("$path"); fi
  done <"$scratch/files"
  for dir in /etc/framepipe /etc/default/framepipe /var/lib/framepipe /usr/share/framepipe /usr/share/doc/framepipe; do
    [ ! -e "$root$dir" ] || left+=("$dir")
  done
  [ ${#left[@]} -eq 0 ] || fail "after dpkg -P these remain: ${left[*]}"
  echo "package test: passed"
  exit 0
fi

# ---- outside: skip checks, the package, the root filesystem ----
build_dir=$1 source_dir=$2 cache_dir=$3
skip() { echo "Skipped: $*"; exit 77; }
for tool in mmdebstrap lintian dpkg-shlibdeps curl; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (tools/setup.sh installs it)"
done
if [ "$(id -u)" -ne 0 ]; then
  sudo -n true 2>/dev/null && exec sudo -n "$0" "$@"
  skip "a root filesystem and chroot need root (or sudo without a password)"
fi
unshare --mount --propagation private true 2>/dev/null ||
  skip "mount namespaces are not permitted here (unshare --mount)"

work=
finish() {
  local status=$?
  [ -z "$work" ] || rm -rf "$work"
  if [ "$status" -eq 77 ]; then
    echo "package test: FAILED: exit status 77 after the skip checks: a failure, not a skip" >&2
    status=1
  fi
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# The cache folder may not exist yet: this test starts first (its COST), before the image test.
mkdir -p "$cache_dir"
rm -rf "$cache_dir"/package-run.*
work=$(mktemp -d "$cache_dir/package-run.XXXXXX")
echo "== tools/make-deb.sh"
deb=$("$source_dir/tools/make-deb.sh" "$build_dir" "$work/deb" | tail -n 1) || fail "tools/make-deb.sh"
echo "$deb"
echo "== lintian"
lintian_out=$(lintian --allow-root --info "$deb" 2>&1) || true
echo "$lintian_out"
if grep -q '^E: ' <<<"$lintian_out"; then fail "lintian reports errors"; fi
base=$("$source_dir/tests/image/debian_base.sh" "$cache_dir") || fail "no Debian root filesystem"
mkdir -p "$work/root" "$work/scratch" "$cache_dir/apt-archives/partial"
tar -C "$work/root" -xf "$base"
unshare --mount --propagation private "$0" --inside "$work/root" "$deb" "$cache_dir/apt-archives" "$work/scratch"
