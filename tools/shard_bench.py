#!/usr/bin/env python3
"""Watches several `framepipe serve` processes that share one stream list, each given its
own --shard I/N (issue 20, section 5: one process per GPU, as one pod per GPU would be):

  1. waits until every listed stream runs, each on exactly one process (the union of their
     GET /v1/streams is the list, pairwise disjoint) and each process runs all it was
     assigned (GET /v1/info's stream_list.assigned);
  2. lets one latency window pass, so that the servers' recent window holds only frames
     from after every stream started;
  3. measures SECONDS: frames and drops over the measured time, the recent p99 of every
     stream sampled once a window, the whole-run p99, GPU memory and RSS per process.

Checks: each process's share within SPLIT_TOLERANCE of streams/N, 0 frames dropped while
measured, every stream's recent p99 <= P99_LIMIT_MS. Writes shard-bench.json and
shard-bench.md. The HTTP helpers are tools/serve_bench.py's; only the standard library, for
the GPU machine's bare Python.

  shard_bench.py --server URL,PID,DEVICE [--server ...] --streams N --out DIR [options]
"""
import argparse
import json
import os
import statistics
import sys
import time

from serve_bench import get_streams, gpu_memory_mib, request, rss_mib


class Process:
    def __init__(self, spec):
        url, pid, device = spec.split(",")
        self.base, self.pid, self.device = url.rstrip("/"), int(pid), device

    def info(self):
        status, body = request(f"{self.base}/v1/info")
        if status != 200:
            raise RuntimeError(f"GET {self.base}/v1/info: {status} {body}")
        return body

    def streams(self):
        return get_streams(self.base)


def known(value):
    """None for a figure this machine has not (GPU memory on the CPU): JSON has no NaN."""
    return None if value != value else value


def mib(value):
    return "n/a" if value is None else f"{value:.0f}"


def placement(processes, expected):
    """(ok, why): every expected stream on exactly one process, running, and each process
    running as many as it says it was assigned."""
    seen = {}
    for i, p in enumerate(processes):
        streams = p.streams()
        for name, s in streams.items():
            if name in seen:
                return False, f"{name} runs on processes {seen[name]} and {i}"
            seen[name] = i
            if s["state"] != "running":
                return False, f"{name} on process {i} is {s['state']} ({s.get('last_error')})"
        assigned = p.info()["stream_list"]["assigned"]
        if assigned != len(streams):
            return False, f"process {i} was assigned {assigned} and lists {len(streams)}"
    if set(seen) != expected:
        missing = sorted(expected - set(seen))
        return False, f"{len(missing)} listed streams run nowhere: {', '.join(missing[:8])}"
    return True, ""


def sample(process):
    return {name: {"frames": s["frames"], "dropped": s["dropped"], "p99_recent_ms": s["latency"]["recent"]["p99_ms"],
                   "p99_ms": s["latency"]["p99_ms"], "state": s["state"]}
            for name, s in process.streams().items()}


def run(args, log):
    processes = [Process(spec) for spec in args.server]
    expected = {f"{args.prefix}{i:02d}" for i in range(args.streams)}
    record = {"streams": args.streams, "replicas": len(processes), "seconds": args.seconds, "window": args.window,
              "p99_limit_ms": args.p99_limit_ms, "split_tolerance": args.split_tolerance}

    # 1. Every stream running, once.
    t0 = time.monotonic()
    why = ""
    while time.monotonic() - t0 < args.start_timeout:
        ok, why = placement(processes, expected)
        if ok:
            break
        time.sleep(0.5)
    else:
        raise RuntimeError(f"not every stream ran once within {args.start_timeout} s: {why}")
    record["start_seconds"] = time.monotonic() - t0
    log(f"{args.streams} streams running over {len(processes)} processes after {record['start_seconds']:.1f} s")

    # 2. One window for the recent latency to forget the start.
    time.sleep(args.window)
    start = [sample(p) for p in processes]

    # 3. The measured time: the recent p99 sampled once a window.
    windows = [[] for _ in processes]
    t_start = time.monotonic()
    while time.monotonic() - t_start < args.seconds:
        time.sleep(min(args.window, max(0.0, args.seconds - (time.monotonic() - t_start))))
        for i, p in enumerate(processes):
            windows[i].append(sample(p))
    measured = time.monotonic() - t_start
    end = [sample(p) for p in processes]

    record["processes"] = []
    for i, p in enumerate(processes):
        info = p.info()
        names = sorted(end[i])
        recent = [w[n]["p99_recent_ms"] for w in windows[i] for n in names if n in w]
        frames = sum(end[i][n]["frames"] - start[i].get(n, {"frames": 0})["frames"] for n in names)
        record["processes"].append({
            "ordinal": info["shard"]["ordinal"], "replicas": info["shard"]["replicas"], "device": p.device,
            "assigned": info["stream_list"]["assigned"], "listed": info["stream_list"]["listed"],
            "running": sum(1 for n in names if end[i][n]["state"] == "running"),
            "frames": frames, "fps": frames / measured,
            "dropped": sum(end[i][n]["dropped"] - start[i].get(n, {"dropped": 0})["dropped"] for n in names),
            "dropped_since_start": sum(end[i][n]["dropped"] for n in names),
            "p99_recent_max_ms": max(recent, default=float("nan")),
            "p99_recent_median_ms": statistics.median(recent) if recent else float("nan"),
            "p99_whole_max_ms": max((end[i][n]["p99_ms"] for n in names), default=float("nan")),
            "gpu_memory_mib": known(gpu_memory_mib(p.base)), "rss_mib": known(rss_mib(p.pid)),
        })
    record["measured_seconds"] = measured

    share = args.streams / len(processes)
    checks = {
        "each stream once": placement(processes, expected)[0],
        "split": all(abs(p["assigned"] - share) <= args.split_tolerance * share for p in record["processes"]),
        "no drops": all(p["dropped"] == 0 for p in record["processes"]),
        "p99": all(p["p99_recent_max_ms"] <= args.p99_limit_ms for p in record["processes"]),
    }
    record["checks"] = checks
    return record


def markdown(record):
    checks = record["checks"]
    lines = [
        f"# {record['streams']} streams over {record['replicas']} `framepipe serve --shard` processes, "
        f"{record['measured_seconds']:.0f} s measured",
        "",
        f"- all {record['streams']} streams running, each on one process, {record['start_seconds']:.1f} s after the "
        f"watch began; then one {record['window']:.0f} s window passed before measuring",
        f"- checks: " + ", ".join(f"{name} {'ok' if ok else 'FAILED'}" for name, ok in checks.items()) +
        f" (split: within {record['split_tolerance']:.0%} of {record['streams'] / record['replicas']:.0f}; "
        f"p99: every stream's recent p99 ≤ {record['p99_limit_ms']:.0f} ms)",
        "",
        "| shard | device | assigned | running | frames | fps | dropped (measured / since start) | "
        "p99 recent median / max ms | p99 whole max ms | GPU memory MiB | RSS MiB |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in record["processes"]:
        lines.append(f"| {p['ordinal']}/{p['replicas']} | {p['device']} | {p['assigned']} | {p['running']} | "
                     f"{p['frames']} | {p['fps']:.1f} | {p['dropped']} / {p['dropped_since_start']} | "
                     f"{p['p99_recent_median_ms']:.1f} / {p['p99_recent_max_ms']:.1f} | {p['p99_whole_max_ms']:.1f} | "
                     f"{mib(p['gpu_memory_mib'])} | {mib(p['rss_mib'])} |")
    return "\n".join(lines) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--server", action="append", required=True, help="URL,PID,DEVICE of one process (repeat per shard)")
    p.add_argument("--streams", type=int, required=True, help="the list's streams, named PREFIX00, PREFIX01, ...")
    p.add_argument("--prefix", default="cam")
    p.add_argument("--seconds", type=float, default=60.0, help="measured time, after every stream runs")
    p.add_argument("--window", type=float, default=10.0, help="the servers' recent-latency window, seconds")
    p.add_argument("--start-timeout", type=float, default=180.0)
    p.add_argument("--p99-limit-ms", type=float, default=100.0)
    p.add_argument("--split-tolerance", type=float, default=0.25,
                   help="a process's share may differ from streams/N by this fraction (64 names over 2 by "
                        "rendezvous: a binomial spread, σ = 4)")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    events = []

    def log(text):
        line = f"[{time.strftime('%H:%M:%S')}] {text}"
        print(line, flush=True)
        events.append(line)

    try:
        record = run(args, log)
    except Exception as e:  # the events so far say where it stopped
        print(f"shard-bench: {e}", file=sys.stderr)
        with open(os.path.join(args.out, "shard-bench-events.txt"), "w") as f:
            f.write("\n".join(events) + f"\nfailed: {e}\n")
        return 1
    record["events"] = events
    with open(os.path.join(args.out, "shard-bench.json"), "w") as f:
        json.dump(record, f, indent=2)
    text = markdown(record)
    with open(os.path.join(args.out, "shard-bench.md"), "w") as f:
        f.write(text)
    print(text)
    return 0 if all(record["checks"].values()) else 3


if __name__ == "__main__":
    sys.exit(main())
