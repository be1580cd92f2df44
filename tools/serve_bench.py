#!/usr/bin/env python3
"""Drives a running `framepipe serve` through its HTTP API (issue 19, section 3):

  1. adds STREAMS paced camera-like streams one by one, each waited for until it runs;
  2. a quiet phase: every stream's drops and recent latency (the server's 10 s window);
  3. churn: ROUNDS times, removes CHURN of them, waits until they are gone (GPU memory is
     read then: it must come back to what the untouched streams alone hold), adds them
     again; the untouched streams' drops and recent latency are sampled all along;
  4. CYCLES add/remove cycles of one extra stream: GPU memory and the server's RSS before
     and after (growth must stay under 1%).

Writes a JSON record and a Markdown summary. Only the standard library: it runs on the GPU
machine's bare Python.

  serve_bench.py --url http://127.0.0.1:PORT --uri INPUT --pid PID --out DIR [options]
"""
import argparse
import json
import os
import statistics
import sys
import time
import urllib.error
import urllib.request


def request(url, method="GET", body=None, timeout=10):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as response:
            payload = response.read()
            return response.status, json.loads(payload) if payload else None
    except urllib.error.HTTPError as e:
        payload = e.read()
        try:
            return e.code, json.loads(payload)
        except ValueError:
            return e.code, payload.decode(errors="replace")


def get_streams(base):
    """GET /v1/streams as {name: stream}."""
    status, body = request(f"{base}/v1/streams")
    if status != 200:
        raise RuntimeError(f"GET {base}/v1/streams: {status} {body}")
    return {s["name"]: s for s in (body["streams"] if isinstance(body, dict) else body)}


def gpu_memory_mib(base):
    """The server's own figure (framepipe_gpu_memory_used_bytes, cudaMemGetInfo: the whole
    GPU's use, as nvidia-smi shows it). Not nvidia-smi itself: starting NVML takes driver
    locks that stall the GPU's other work for milliseconds, which would show in the very
    latency this benchmark measures."""
    try:
        with urllib.request.urlopen(f"{base}/metrics", timeout=10) as response:
            for line in response.read().decode().splitlines():
                if line.startswith("framepipe_gpu_memory_used_bytes{"):
                    return float(line.split()[-1]) / (1024 * 1024)
    except (OSError, ValueError):
        pass
    return float("nan")


def rss_mib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return float("nan")


class Bench:
    def __init__(self, args):
        self.args = args
        self.base = args.url.rstrip("/")
        self.events = []

    def log(self, text):
        line = f"[{time.strftime('%H:%M:%S')}] {text}"
        print(line, flush=True)
        self.events.append(line)

    def streams(self):
        return get_streams(self.base)

    def add(self, name, uri=None):
        body = {"pipeline": self.args.pipeline, "uri": uri or self.args.uri}
        status, reply = request(f"{self.base}/v1/streams/{name}", "PUT", body)
        if status not in (200, 201):
            raise RuntimeError(f"PUT {name}: {status} {reply}")

    def remove(self, name):
        status, reply = request(f"{self.base}/v1/streams/{name}", "DELETE")
        if status != 202:
            raise RuntimeError(f"DELETE {name}: {status} {reply}")

    def wait_for(self, predicate, what, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate(self.streams()):
                return
            time.sleep(0.2)
        raise RuntimeError(f"timed out after {timeout} s waiting for {what}")

    def poll_for(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            self.streams()
            time.sleep(0.2)

    def wait_running(self, name):
        self.wait_for(lambda s: name in s and s[name]["state"] == "running", f"{name} to run", 60)

    def wait_gone(self, names):
        self.wait_for(lambda s: not any(n in s for n in names), f"{', '.join(names)} to go", 60)

    def sample(self, names):
        streams = self.streams()
        return {n: {"dropped": streams[n]["dropped"], "frames": streams[n]["frames"],
                    "p99_ms": streams[n]["latency"]["recent"]["p99_ms"],
                    "p50_ms": streams[n]["latency"]["recent"]["p50_ms"]} for n in names}

    def run(self):
        a = self.args
        names = [f"cam{i:02d}" for i in range(a.streams)]
        churned = names[-a.churn:] if a.churn else []
        untouched = [n for n in names if n not in churned]
        record = {"churn_uri": a.churn_uri, "streams": a.streams, "churn": a.churn, "rounds": a.rounds, "cycles": a.cycles,
                  "uri": a.uri, "pipeline": a.pipeline}
        record["gpu_memory_empty_mib"] = gpu_memory_mib(self.base)

        # 1. Streams added one by one to the running server.
        t0 = time.monotonic()
        for n in names:
            self.add(n)
            self.wait_running(n)
        record["add_seconds"] = time.monotonic() - t0
        self.log(f"{a.streams} streams running after {record['add_seconds']:.1f} s")

        # 2. Quiet: the recent window must first hold only frames from after the adds. The
        # API is read as often as during the churn (whose waits poll it), so that both
        # phases carry the same observer's load and only the churn differs.
        self.poll_for(a.window)
        quiet_start = self.sample(names)
        quiet = []
        for _ in range(a.quiet_windows):
            self.poll_for(a.window)
            quiet.append(self.sample(untouched))
        quiet_end = self.sample(names)
        record["gpu_memory_all_mib"] = gpu_memory_mib(self.base)

        # 3. Churn.
        churn_samples = []
        memory_after_removal = []
        churn_start = self.sample(untouched)
        last_sample = time.monotonic()
        for r in range(a.rounds):
            for n in churned:
                self.remove(n)
            self.wait_gone(churned)
            memory_after_removal.append(gpu_memory_mib(self.base))
            for n in churned:
                self.add(n, a.churn_uri)
            for n in churned:
                self.wait_running(n)
            self.poll_for(a.settle)
            if time.monotonic() - last_sample >= a.window:
                churn_samples.append(self.sample(untouched))
                last_sample = time.monotonic()
            self.log(f"churn round {r + 1}/{a.rounds}: {memory_after_removal[-1]:.0f} MiB with {len(untouched)} streams")
        time.sleep(max(0.0, a.window - (time.monotonic() - last_sample)))
        churn_samples.append(self.sample(untouched))
        churn_end = self.sample(untouched)

        per_stream = []
        for n in untouched:
            quiet_p99 = statistics.mean(s[n]["p99_ms"] for s in quiet)
            churn_p99 = statistics.mean(s[n]["p99_ms"] for s in churn_samples)
            per_stream.append({"stream": n,
                               "dropped_quiet": quiet_end[n]["dropped"] - quiet_start[n]["dropped"],
                               "dropped_churn": churn_end[n]["dropped"] - churn_start[n]["dropped"],
                               "frames_churn": churn_end[n]["frames"] - churn_start[n]["frames"],
                               "p99_quiet_ms": quiet_p99, "p99_churn_ms": churn_p99,
                               "p99_change": churn_p99 / quiet_p99 - 1 if quiet_p99 > 0 else float("nan")})
        record["untouched"] = per_stream
        record["gpu_memory_after_removal_mib"] = memory_after_removal

        # 4. Many add/remove cycles of one extra stream.
        cycle_name = "cycle"
        memory_before, rss_before = gpu_memory_mib(self.base), rss_mib(a.pid)
        t0 = time.monotonic()
        for i in range(a.cycles):
            self.add(cycle_name)
            self.wait_running(cycle_name)
            self.remove(cycle_name)
            self.wait_gone([cycle_name])
            if i == 0:  # the first cycle may fill pools that later cycles reuse
                memory_before, rss_before = gpu_memory_mib(self.base), rss_mib(a.pid)
        record["cycles_seconds"] = time.monotonic() - t0
        memory_after, rss_after = gpu_memory_mib(self.base), rss_mib(a.pid)
        record.update({"cycles_gpu_memory_mib": [memory_before, memory_after],
                       "cycles_rss_mib": [rss_before, rss_after]})
        record["events"] = self.events
        return record


def markdown(record):
    u = record["untouched"]
    changes = [s["p99_change"] for s in u]
    lines = [
        f"# framepipe serve under churn: {record['streams']} streams, {record['churn']} removed and re-added "
        f"{record['rounds']} times",
        "",
        f"- {record['streams']} streams added one by one in {record['add_seconds']:.1f} s",
        f"- untouched streams: {len(u)}; frames dropped while quiet: {sum(s['dropped_quiet'] for s in u)}, "
        f"during churn: {sum(s['dropped_churn'] for s in u)}",
        f"- p99 latency change, churn vs quiet (per untouched stream): min {min(changes):+.1%}, "
        f"median {statistics.median(changes):+.1%}, max {max(changes):+.1%}",
        f"- GPU memory: empty {record['gpu_memory_empty_mib']:.0f} MiB, {record['streams']} streams "
        f"{record['gpu_memory_all_mib']:.0f} MiB, after each removal "
        f"{', '.join(f'{m:.0f}' for m in record['gpu_memory_after_removal_mib'])} MiB",
        f"- {record['cycles']} add/remove cycles in {record['cycles_seconds']:.0f} s: GPU memory "
        f"{record['cycles_gpu_memory_mib'][0]:.0f} -> {record['cycles_gpu_memory_mib'][1]:.0f} MiB, RSS "
        f"{record['cycles_rss_mib'][0]:.0f} -> {record['cycles_rss_mib'][1]:.0f} MiB",
        "",
        "| stream | dropped quiet | dropped churn | frames churn | p99 quiet ms | p99 churn ms | change |",
        "|---|---|---|---|---|---|---|",
    ]
    for s in u:
        lines.append(f"| {s['stream']} | {s['dropped_quiet']} | {s['dropped_churn']} | {s['frames_churn']} | "
                     f"{s['p99_quiet_ms']:.2f} | {s['p99_churn_ms']:.2f} | {s['p99_change']:+.1%} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True)
    p.add_argument("--uri", required=True, help="every stream's input")
    p.add_argument("--churn-uri", help="the churned streams' input when not --uri (to tell the cost of "
                   "opening a decoder from that of the rest of a stream's start)")
    p.add_argument("--pipeline", default="camera")
    p.add_argument("--pid", type=int, required=True, help="the server's process, for its RSS")
    p.add_argument("--out", required=True)
    p.add_argument("--streams", type=int, default=32)
    p.add_argument("--churn", type=int, default=8)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--cycles", type=int, default=100)
    p.add_argument("--window", type=float, default=10.0, help="the server's recent-latency window, seconds")
    p.add_argument("--quiet-windows", type=int, default=3)
    p.add_argument("--settle", type=float, default=2.0, help="seconds after each re-add")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    bench = Bench(args)
    try:
        record = bench.run()
    except Exception as e:  # the record so far says where it stopped
        print(f"serve-bench: {e}", file=sys.stderr)
        with open(os.path.join(args.out, "serve-bench-events.txt"), "w") as f:
            f.write("\n".join(bench.events) + f"\nfailed: {e}\n")
        return 1
    with open(os.path.join(args.out, "serve-bench.json"), "w") as f:
        json.dump(record, f, indent=2)
    text = markdown(record)
    with open(os.path.join(args.out, "serve-bench.md"), "w") as f:
        f.write(text)
    print(text)
    u = record["untouched"]
    ok = (all(s["dropped_churn"] == 0 for s in u) and all(abs(s["p99_change"]) <= 0.10 for s in u))
    return 0 if ok else 3


if __name__ == "__main__":
    sys.exit(main())
