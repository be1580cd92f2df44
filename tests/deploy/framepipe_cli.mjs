// The real framepipe binary, asked what the manifests assume of it: the flags its commands
// take (their --help), that the pipeline files validate, and — against a real `framepipe
// serve` — that the probe paths answer without a token, /metrics wants one, and the preStop
// command drains the server.
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// The long flags `framepipe COMMAND --help` lists, e.g. {"--listen", "--token-file", ...}.
export function commandFlags(framepipe, command) {
  const help = execFileSync(framepipe, [command, "--help"], { encoding: "utf8", timeout: 30000 });
  const flags = new Set();
  for (const line of help.split("\n")) {
    const m = line.match(/^\s+((?:-\w,)?--[\w-]+)/);
    if (m) for (const name of m[1].split(",")) flags.add(name);
  }
  if (!flags.has("--help")) throw new Error(`framepipe ${command} --help listed no options:\n${help}`);
  return flags;
}

// `framepipe validate FILE`: null when it passes, else what it said.
export function validatePipeline(framepipe, file) {
  try {
    execFileSync(framepipe, ["validate", file, "--quiet"], { encoding: "utf8", timeout: 60000, stdio: "pipe" });
    return null;
  } catch (e) {
    return `${e.stdout || ""}${e.stderr || e.message}`.trim();
  }
}

async function get(url, headers = {}) {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
  await response.arrayBuffer();
  return response.status;
}

// A real `framepipe serve` of PIPELINE on loopback with TOKEN, run as the pod runs it (its
// token file, a drain timeout), then probed as the kubelet and Prometheus would and stopped
// by the pod's own preStop command followed by the kubelet's SIGTERM (with the pod's token path pointed at this token file
// and POD_IP at loopback, its port at this server's). With `probeListen` the server also
// gets --probe-listen, and the probes are asked there (where the API must not answer). It reads the pods' stream list as
// shard 999 of 1000, which owns none of the list's few streams (so none starts connecting to
// cameras that are not here), and must list every one of them. Resolves to the problems found.
export async function probeServer(framepipe, { pipeline, streamList, streamCount, token, probePaths, metricsPath, preStop, tokenPath,
  listenPort, probeListen, boundMs }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "framepipe-k8s-serve-"));
  const tokenFile = path.join(dir, "token");
  fs.writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  const server = spawn(framepipe, ["serve", pipeline, "--listen", "127.0.0.1:0", "--token-file", tokenFile,
    "--output-root", dir, "--device", "cpu", "--drain-timeout", "10", "--stream-list", streamList, "--shard", "999/1000",
    ...(probeListen ? ["--probe-listen", "127.0.0.1:0"] : [])],
    { stdio: ["ignore", "ignore", "pipe"] });
  let log = "";
  const exited = new Promise((resolve) => server.on("exit", (code, signal) => resolve(signal ? `signal ${signal}` : code)));
  const problems = [];
  try {
    const [port, probesPort] = await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`framepipe serve did not listen within ${boundMs} ms:\n${log}`)), boundMs);
      server.stderr.on("data", (chunk) => {
        log += chunk;
        const m = log.match(/listening on http:\/\/127\.0\.0\.1:(\d+)/);
        const p = log.match(/probes on http:\/\/127\.0\.0\.1:(\d+)/);
        if (m && (p || !probeListen)) { clearTimeout(timer); resolve([Number(m[1]), p ? Number(p[1]) : Number(m[1])]); }
      });
      exited.then((code) => { clearTimeout(timer); reject(new Error(`framepipe serve exited (${code}) before listening:\n${log}`)); });
    });
    const base = `http://127.0.0.1:${port}`;
    const probes = `http://127.0.0.1:${probesPort}`;
    for (const probe of probePaths) {
      const status = await get(probes + probe);
      if (status !== 200) problems.push(`probe path ${probe}: framepipe serve answered ${status} without a token (the kubelet sends none)`);
    }
    if (probeListen && (await get(`${probes}/v1/info`, { Authorization: `Bearer ${token}` })) !== 404)
      problems.push("--probe-listen's port answers the API too (it should answer the probes only)");
    const info = await (await fetch(`${base}/v1/info`, { headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) })).json();
    const list = info.stream_list || {};
    if (list.listed !== streamCount || list.error !== null || Object.keys(list.rejected || {}).length)
      problems.push(`the stream list: serve lists ${list.listed} of its ${streamCount} streams (error ${list.error}, rejected ${JSON.stringify(list.rejected)})`);
    if (list.assigned !== 0) problems.push(`shard 999/1000 was to own none of the stream list, but owns ${list.assigned}: pick another for this test`);
    const bare = await get(base + metricsPath);
    const authorized = await get(base + metricsPath, { Authorization: `Bearer ${token}` });
    if (bare !== 401 || authorized !== 200)
      problems.push(`${metricsPath}: ${bare} without the token, ${authorized} with it (expected 401, 200: the PodMonitor must send it)`);
    // The pod's preStop command, as the kubelet runs it in the container (its env: POD_IP).
    const [program, ...args] = preStop.map((word) =>
      word.split(tokenPath).join(tokenFile).split(`:${listenPort}/`).join(`:${port}/`));
    try {
      execFileSync(program, args, { env: { ...process.env, POD_IP: "127.0.0.1" }, encoding: "utf8", timeout: 15000, stdio: "pipe" });
    } catch (e) {
      problems.push(`the preStop command failed (${e.status ?? e.signal}): ${(e.stderr || e.message).trim()}`);
    }
    // The kubelet sends SIGTERM as soon as the hook returns. After POST /v1/drain that is a
    // second signal, which ends serve at once (exit 130, outputs unfinished), so the hook
    // must have waited for the drain to end.
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGTERM");
    const code = await Promise.race([exited, new Promise((r) => setTimeout(() => r("still running"), boundMs))]);
    if (code !== 0)
      problems.push(`after the preStop command and the kubelet's SIGTERM framepipe serve should have drained and exited 0; got ${code}:\n${log}`);
  } catch (e) {
    problems.push(e.message);
  } finally {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGKILL");
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}
