# Sourced (inside their private mount namespaces) by image_rootfs_test.sh and
# tests/packaging/package_test.sh: a `framepipe serve` started in a root filesystem, killed
# whole on every way out, waited for, and given one stream. The sourcing script defines
#   fail MESSAGE      its failure line
#   api CURL-ARGS...  how it reaches the API (the image's curl with the token; this machine's)
# and starts serve as `timeout ... &`, setting serve=$! (timeout leads a process group of its
# own, GNU timeout's setpgid, in which serve runs: stop_serve kills that group).

serve=
# serve's process group, killed on any way out: a failed check, a signal.
stop_serve() {
  [ -n "$serve" ] || return 0
  kill -KILL -- "-$serve" 2>/dev/null || kill -KILL "$serve" 2>/dev/null || true
  wait "$serve" 2>/dev/null || true
  serve=
}
trap stop_serve EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# wait_for_serve LOG: sets port once serve's log says where it listens and that it is ready
# (15 s at most).
wait_for_serve() {
  local log=$1
  port=
  for _ in $(seq 150); do
    port=$(sed -n 's|.*listening on http://127\.0\.0\.1:\([0-9]*\).*|\1|p' "$log")
    [ -n "$port" ] && grep -q 'framepipe serve: ready:' "$log" && return 0
    kill -0 "$serve" 2>/dev/null || { cat "$log" >&2; fail "serve ended before it listened"; }
    sleep 0.1
  done
  cat "$log" >&2
  fail "serve did not say where it listens and that it is ready within 15 s"
}

# livez_and_one_stream LOG URI: GET /livez answers 200; a PUT of stream cam-1 reading URI is
# 201; then waits (30 s at most) until the API says it has written frames, so that a drain
# after it finalizes a file with frames, rather than waiting a fixed time a slow machine may
# not meet.
livez_and_one_stream() {
  local log=$1 uri=$2 code stream= deadline
  code=$(api -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/livez") || true
  [ "$code" = 200 ] || { cat "$log" >&2; fail "GET /livez: HTTP $code"; }
  code=$(api -o /dev/null -w '%{http_code}' -X PUT -H 'Content-Type: application/json' \
    -d "{\"uri\": \"$uri\"}" "http://127.0.0.1:$port/v1/streams/cam-1") || true
  [ "$code" = 201 ] || { cat "$log" >&2; fail "PUT /v1/streams/cam-1: HTTP $code"; }
  deadline=$((SECONDS + 30))
  while [ "$SECONDS" -lt "$deadline" ]; do
    stream=$(api "http://127.0.0.1:$port/v1/streams/cam-1") || true
    grep -q '"frames": *[1-9]' <<<"$stream" && return 0
    sleep 0.2
  done
  cat "$log" >&2
  fail "the stream wrote no frame within 30 s: GET /v1/streams/cam-1: $stream"
}
