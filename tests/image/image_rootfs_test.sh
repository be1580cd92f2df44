#!/usr/bin/env bash
# image_rootfs_test.sh FRAMEPIPE SOURCE_DIR CACHE_DIR
#
# The container image (deploy/Containerfile) as far as a machine without a container engine
# can test it. Its runtime stage's root filesystem is built the same way: debian 12 (minbase,
# the docker images' "slim" path excludes) + deploy/runtime-setup.sh with
# deploy/runtime-packages.txt, inside it (chroot). Then, with this build's framepipe and
# config/*.yaml copied in as the Containerfile copies them, the root mounted READ-ONLY (a
# private mount namespace), a tmpfs on /tmp, a volume on /var/lib/framepipe and the token on
# /run/secrets/framepipe, as uid 10001 through chroot:
#   - ldd finds every library (no "not found", no libcudart: the CUDA runtime is static);
#   - framepipe --version (the Containerfile's version label agrees) and framepipe stages;
#   - a CPU pipeline (tests/image/cpu_pipeline.yaml): testsrc through the stages into two .mkv
#     files and a histogram file in the volume, read back by framepipe probe;
#   - the image's default command (the Containerfile's CMD, its --listen moved to a free
#     loopback port): serve answers /livez to the image's curl with the token, runs a stream,
#     and a drain through the API finalizes it into the volume and ends serve with 0.
# Not tested here: the Containerfile's build (no engine, no registry), NVIDIA's apt repository,
# the NVIDIA container toolkit, CUDA and NVDEC inside a container.
#
# The root filesystem starts from the clean Debian 12 root that the package test also starts
# from (tests/image/debian_base.sh: one mmdebstrap run a build tree), and is cached in CACHE_DIR
# as a tar file named after a hash of what makes it (that root, the package list, the setup
# script), so only the first run (about a minute) needs the network. Needs root (or sudo without a password) and mmdebstrap; without
# them it exits 77 (a skip), which CI refuses (tools/check-skips.sh; tools/setup.sh installs
# mmdebstrap). It skips only there, before it checks anything: past those checks an exit
# status of 77 (a command's, under set -e) is turned into a failure, never a skip.
# Nothing outlives it: one run's copy of the root and its files are removed on every way out
# (a copy left by a run that was killed outright goes at the next run's start), and serve is
# killed, whole, on any way out of the part that runs it.
set -euo pipefail

# "NAME: FAILED: ..." is the failure line tools/check-skips.sh knows a script's by.
fail() { echo "image test: FAILED: $*" >&2; exit 1; }

# ---- inside the private mount namespace (the outer part below starts it) ----
if [ "${1:-}" = --inside ]; then
  root=$2 volume=$3 secrets=$4 token_path=$5 pipeline_version=$6 scratch=$7
  shift 7
  cmd=("$@")
  # shellcheck source=serve_checks.sh
  . "$(dirname "$0")/serve_checks.sh"
  ro_bind() { mount --bind "$1" "$2" && mount -o remount,bind,ro "$2"; }
  ro_bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount -t tmpfs -o mode=1777,size=64m tmpfs "$root/tmp"
  mount --bind "$volume" "$root/var/lib/framepipe"
  ro_bind "$secrets" "$root$(dirname "$token_path")"
  # image_argv COMMAND...: sets argv to COMMAND as the image runs it (uid 10001, its WORKDIR
  # and ENV, nothing of this machine's environment).
  image_argv() {
    argv=(chroot --userspec=10001:10001 "$root" /usr/bin/env -i
      PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/var/lib/framepipe
      NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility,video
      /bin/sh -c 'cd /var/lib/framepipe && exec "$@"' sh "$@")
  }
  # in_image SECONDS COMMAND...: COMMAND as the image runs it, for at most SECONDS.
  in_image() {
    local limit=$1
    shift
    image_argv "$@"
    timeout "$limit" "${argv[@]}"
  }

  # The read-only root is what the rest proves framepipe copes with: make sure it is one.
  if chroot "$root" /bin/sh -c ': >/.framepipe-write-probe' 2>/dev/null; then
    fail "the root filesystem is writable: the read-only mount did not take"
  fi

  echo "== ldd /usr/local/bin/framepipe (in the image)"
  libs=$(in_image 30 ldd /usr/local/bin/framepipe) || fail "ldd failed: $libs"
  if grep -q libcudart <<<"$libs"; then
    fail "framepipe links libcudart.so: the image has no CUDA toolkit (link it statically, CMAKE_CUDA_RUNTIME_LIBRARY=Static)"
  fi
  if grep -q 'not found' <<<"$libs"; then
    grep 'not found' <<<"$libs" >&2
    fail "libraries missing from the image (deploy/runtime-packages.txt)"
  fi
  echo "$(wc -l <<<"$libs") libraries, none missing"

  echo "== framepipe --version"
  version=$(in_image 30 framepipe --version) || fail "framepipe --version: $version"
  echo "$version"
  grep -q "^framepipe $pipeline_version " <<<"$version" ||
    fail "deploy/Containerfile's FRAMEPIPE_VERSION ($pipeline_version) is not the binary's version"

  echo "== framepipe stages"
  stages=$(in_image 30 framepipe stages) || fail "framepipe stages: $stages"
  for stage in decode luma_histogram nlmeans pyramid_fusion mean_smooth thinning encode; do
    grep -q "^  $stage " <<<"$stages" || fail "framepipe stages does not list $stage: $stages"
  done

  echo "== framepipe run pipeline.yaml (CPU, testsrc)"
  in_image 120 framepipe run pipeline.yaml || fail "the pipeline failed in the image"
  for file in fused.mkv skeleton.mkv histogram.jsonl; do
    [ -s "$volume/$file" ] || fail "the pipeline did not write $file into the volume"
  done
  rows=$(wc -l <"$volume/histogram.jsonl")
  [ "$rows" -eq 30 ] || fail "histogram.jsonl has $rows rows, not one per frame (30)"
  for file in fused.mkv skeleton.mkv; do
    probe=$(in_image 30 framepipe probe "$file") || fail "framepipe probe $file: $probe"
    grep -q 'video h264 320x240' <<<"$probe" || fail "$file is not the 320x240 H.264 video: $probe"
  done

  echo "== the default command: framepipe ${cmd[*]}"
  log=$scratch/serve.log
  # timeout itself is the background job ($!, not a subshell around it) and leads a process
  # group of its own (GNU timeout's setpgid), in which serve runs: stop_serve kills the group,
  # where killing a subshell would leave serve running until its 90 s were up.
  image_argv framepipe "${cmd[@]}"
  timeout 90 "${argv[@]}" >"$log" 2>&1 &
  serve=$!
  wait_for_serve "$log"
  # The image's own curl (the Kubernetes preStop hook uses it), with the mounted token. The
  # token goes in a header file on the tmpfs: it never appears on a command line.
  token=$(cat "$secrets/$(basename "$token_path")")
  header=$(mktemp -p "$root/tmp")
  printf 'Authorization: Bearer %s\n' "$token" >"$header"
  chmod 0644 "$header"
  api() { in_image 20 curl -sS -H "@/tmp/$(basename "$header")" "$@"; }
  livez_and_one_stream "$log" 'testsrc://320x240@30?frames=30'
  code=$(api -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$port/v1/drain") || true
  [[ "$code" = 20? ]] || { cat "$log" >&2; fail "POST /v1/drain: HTTP $code"; }
  rc=0
  wait "$serve" || rc=$?
  serve=
  cat "$log"
  [ "$rc" -eq 0 ] || fail "serve ended with $rc after the drain (0 expected)"
  [ -s "$volume/streams.json" ] || fail "serve kept no stream state in the volume (streams.json)"
  probe=$(in_image 30 framepipe probe outputs/cam-1.mkv) ||
    fail "the stream's output outputs/cam-1.mkv is not a finalized video: $probe"
  echo "$probe"
  echo "image test: passed"
  exit 0
fi

# ---- outside: skip checks, the cached root filesystem, one run's copy of it ----
framepipe=$1 source_dir=$2 cache_dir=$3
# The only skips: here, before anything is checked.
skip() { echo "Skipped: $*"; exit 77; }
command -v mmdebstrap >/dev/null 2>&1 ||
  skip "mmdebstrap is not installed (Debian package mmdebstrap; tools/setup.sh)"
if [ "$(id -u)" -ne 0 ]; then
  # mmdebstrap's root mode, mount and chroot need root; sudo where it asks no password.
  sudo -n true 2>/dev/null && exec sudo -n "$0" "$@"
  skip "building the image's root filesystem needs root (or sudo without a password)"
fi
unshare --mount --propagation private true 2>/dev/null ||
  skip "mount namespaces are not permitted here (unshare --mount): no read-only root"
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed (reads the Containerfile's CMD)"

# From here on it checks: every way out removes what this run made, and a 77 is no skip.
partial= work=
finish() {
  local status=$?
  [ -z "$partial" ] || rm -f "$partial"
  [ -z "$work" ] || rm -rf "$work"
  if [ "$status" -eq 77 ]; then
    echo "image test: FAILED: exit status 77 after the skip checks: a failure, not a skip" >&2
    status=1
  fi
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

containerfile=$source_dir/deploy/Containerfile
packages=$source_dir/deploy/runtime-packages.txt
setup=$source_dir/deploy/runtime-setup.sh
# debian:*-slim's dpkg excludes (documentation, manuals, translations), as its images have them.
slim=('path-exclude=/usr/share/man/*' 'path-exclude=/usr/share/info/*'
  'path-exclude=/usr/share/doc/*' 'path-include=/usr/share/doc/*/copyright'
  'path-exclude=/usr/share/locale/*' 'path-include=/usr/share/locale/locale.alias'
  'path-exclude=/usr/share/groff/*' 'path-exclude=/usr/share/lintian/*')
# The clean Debian 12 root the package test starts from too (built once, cached).
base=$("$source_dir/tests/image/debian_base.sh" "$cache_dir") || fail "no Debian root filesystem to start from"
key=$({ cat "$packages" "$setup"; echo "$(basename "$base") ${slim[*]}"; } | sha256sum | cut -c1-16)
tarball=$cache_dir/rootfs-$key.tar
mkdir -p "$cache_dir"
if [ -f "$tarball" ]; then
  echo "image test: the root filesystem from the cache ($tarball)"
else
  rm -f "$cache_dir"/rootfs-*.tar  # an older package list's
  rm -rf "$cache_dir"/derive.*     # a run's that was killed outright
  start=$(date +%s)
  partial=$cache_dir/partial-$$.tar
  derive=$(mktemp -d "$cache_dir/derive.XXXXXX")
  work=$derive  # removed on every way out, as a run's copy is
  tar -C "$derive" -xf "$base"
  # The slim excludes in dpkg's configuration, as the debian images have them, before any
  # package is unpacked; then the setup script inside the root, as the Containerfile's RUN
  # does (DNS from this machine for apt, given back after).
  printf '%s\n' "${slim[@]}" >"$derive/etc/dpkg/dpkg.cfg.d/90framepipe-slim"
  install -m 0644 "$packages" "$derive/tmp/runtime-packages.txt"
  install -m 0644 "$setup" "$derive/tmp/runtime-setup.sh"
  resolv_kept=$(mktemp)
  cp -a "$derive/etc/resolv.conf" "$resolv_kept" 2>/dev/null || rm -f "$resolv_kept"
  cp /etc/resolv.conf "$derive/etc/resolv.conf"
  unshare --mount --propagation private sh -c 'mount -t proc proc "$1/proc" && mount --bind /dev "$1/dev" &&
    chroot "$1" sh /tmp/runtime-setup.sh /tmp/runtime-packages.txt' sh "$derive" ||
    fail "deploy/runtime-setup.sh failed in the root filesystem (network? the package list?)"
  rm -f "$derive/tmp/runtime-packages.txt" "$derive/tmp/runtime-setup.sh" "$derive/etc/resolv.conf"
  [ -f "$resolv_kept" ] && mv "$resolv_kept" "$derive/etc/resolv.conf"
  tar -C "$derive" -cf "$partial" .
  rm -rf "$derive"
  work=
  mv "$partial" "$tarball"
  partial=
  # The cache belongs to whoever runs the tests, so that removing the build tree needs no root.
  [ -n "${SUDO_UID:-}" ] && chown "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$tarball" "$cache_dir"
  echo "image test: built the root filesystem in $(($(date +%s) - start)) s ($(du -h "$tarball" | cut -f1)): $tarball"
fi

# The default command, from the Containerfile's CMD (JSON form), its --listen moved to a free
# loopback port (this machine's 8080 may be taken); the token path and the rest as they are.
mapfile -t cmd < <(python3 - "$containerfile" <<'EOF'
import json, sys
line = [l for l in open(sys.argv[1]) if l.startswith("CMD ")][-1]
args = json.loads(line[4:])
args[args.index("--listen") + 1] = "127.0.0.1:0"
print("\n".join(args))
EOF
)
token_path=
for ((i = 0; i < ${#cmd[@]}; i++)); do
  [ "${cmd[$i]}" = --token-file ] && token_path=${cmd[$((i + 1))]}
done
[ -n "$token_path" ] || fail "the Containerfile's CMD has no --token-file"
version=$(sed -n 's/^ARG FRAMEPIPE_VERSION=//p' "$containerfile")

# One run's copy of the root (about 600 MB) beside the cache, on the build tree's disk rather
# than a possibly small /tmp; a copy left by a run that was killed goes first.
rm -rf "$cache_dir"/run.*
work=$(mktemp -d "$cache_dir/run.XXXXXX")
root=$work/root volume=$work/volume secrets=$work/secrets scratch=$work/scratch
mkdir "$root" "$volume" "$secrets" "$scratch"
tar -C "$root" -xf "$tarball"
# What the Containerfile copies in after the setup script.
install -m 0755 "$framepipe" "$root/usr/local/bin/framepipe"
install -m 0644 "$source_dir"/config/*.yaml "$root/etc/framepipe/pipelines/"
# The mount point of the token's Secret (the container runtime makes it on a read-only root).
mkdir -p "$root$(dirname "$token_path")"
# The volume, as Kubernetes' fsGroup leaves it: the user's; the test's pipeline in it.
install -m 0644 "$source_dir/tests/image/cpu_pipeline.yaml" "$volume/pipeline.yaml"
chown -R 10001:10001 "$volume"
head -c 24 /dev/urandom | base64 >"$secrets/$(basename "$token_path")"
chown -R 10001:10001 "$secrets"
chmod 0600 "$secrets/$(basename "$token_path")"
unshare --mount --propagation private "$0" --inside "$root" "$volume" "$secrets" "$token_path" \
  "$version" "$scratch" "${cmd[@]}"
