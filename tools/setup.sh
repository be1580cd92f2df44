#!/usr/bin/env bash
# Installs every build and test dependency of framepipe from Debian/Ubuntu packages.
# Idempotent: installs only what is missing, and does nothing when all is present.
#   tools/setup.sh [--fuzz] [--build-only]
# --build-only: what building framepipe takes and nothing the tests use (no servers, browser,
# kubectl or npm packages): deploy/Containerfile's builder stage.
set -euo pipefail
build_packages=(
  build-essential cmake pkg-config git
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev libavdevice-dev
  libffmpeg-nvenc-dev
  libyaml-cpp-dev libcli11-dev libspdlog-dev libfmt-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # framepipe serve: HTTP (cpp-httplib) and the Prometheus text format (prometheus-cpp core).
  libcpp-httplib-dev prometheus-cpp-dev
)
test_packages=(
  # tests/live: a real RTSP server (GStreamer's rtsp-server, run by /usr/bin/python3 through
  # gi) sending H.264 (x264enc from ugly, rtph264pay from good).
  python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base gstreamer1.0-plugins-good
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
  # tests/live: network outputs (udp, srt, rtsp, HLS) are received and read back with the
  # ffmpeg and ffprobe programs.
  ffmpeg
  # tests/service: a real Prometheus server and promtool, and a real headless browser for the
  # status page (driven by playwright-core from npm, tests/service/browser/package.json).
  prometheus chromium nodejs curl
  # tests/image: the container image's root filesystem, built without a container engine;
  # tests/packaging: the .deb checked by lintian and installed into a clean Debian root.
  mmdebstrap lintian
)
# tests/deploy: `kubectl kustomize` renders deploy/k8s. Debian's kubectl only where none is on
# PATH (a newer one, from elsewhere, is kept). Debian bookworm's is 1.20, whose kustomize
# (v2.0.3) lacks the `replacements` deploy/k8s needs (kubectl >= 1.22): the test says so.
command -v kubectl >/dev/null 2>&1 || test_packages+=(kubernetes-client)
# npm, for the node tests' packages below: Debian's nodejs leaves it out (on a fresh Debian 12
# the npm ci below found no npm). Debian's only where none is on PATH.
command -v npm >/dev/null 2>&1 || test_packages+=(npm)
build_only=false
packages=("${build_packages[@]}")
# Optional groups, for the scripts that need more than the build and its tests.
for group in "$@"; do
  case "$group" in
    --build-only) build_only=true ;;
    # tools/fuzz.sh: clang, libFuzzer and the sanitizer runtimes (-fsanitize=fuzzer links the
    # libFuzzer of libclang-rt-16-dev; libfuzzer-16-dev is the standalone library).
    --fuzz) packages+=(clang-16 libfuzzer-16-dev libclang-rt-16-dev) ;;
    *) echo "setup: unknown option '$group' (known: --fuzz, --build-only)" >&2; exit 2 ;;
  esac
done
$build_only || packages+=("${test_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all dependencies present"
else
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "setup: done"
fi

# The node tests' packages from the npm registry, at the versions their package-lock.json
# pins: tests/service/browser (playwright-core; it drives Debian's chromium and downloads no
# browser) and tests/deploy (kubernetes-models and yaml, to check the Kubernetes manifests).
# npm ci runs only when node_modules is not what that lock file says (a stamp of the lock
# file's hash), so a machine that has it needs no network. A failure is not fatal here:
# everything else builds and runs, and that test fails (on CI) saying its package is missing.
npm_ci_if_changed() {
  local dir=$1 stamp lock_hash
  stamp="$dir/node_modules/.framepipe-lock-sha256"
  lock_hash=$(sha256sum "$dir/package-lock.json" | cut -d' ' -f1)
  [ "$(cat "$stamp" 2>/dev/null)" != "$lock_hash" ] || return 0
  echo "setup: npm ci in ${dir#"$repo/"}"
  if (cd "$dir" && npm ci --prefer-offline --no-audit --no-fund --loglevel=error); then
    echo "$lock_hash" >"$stamp"
  else
    echo "setup: npm ci in $dir failed: its test will fail until it runs" >&2
  fi
}
$build_only && exit 0
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
for dir in tests/service/browser tests/deploy; do
  npm_ci_if_changed "$repo/$dir"
done
