// Starts a real `framepipe serve` for a test and stops it: on a loopback port of its own,
// with its own state file, output root and bearer token in a temporary folder, ready once
// /readyz answers 200. Every wait is bounded; the server's own output is kept for the failure
// report.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

// serve listens on 127.0.0.1:0 and says which port the kernel gave it (as
// tests/service/serve_process.cpp reads it): no port is picked here and freed for it, which
// another process could take in between.
const LISTENING = /framepipe serve: listening on http:\/\/127\.0\.0\.1:([0-9]+)/;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// `token` empty: a server without one (loopback, as a first run has it).
export async function startServer({ framepipe, pipelines, token, readyWithinMs, drainWithinMs }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "framepipe-page-test-"));
  const tokenFile = path.join(dir, "token");
  if (token) fs.writeFileSync(tokenFile, token + "\n", { mode: 0o600 });
  fs.mkdirSync(path.join(dir, "out"));
  const args = ["serve", ...pipelines, "--listen", "127.0.0.1:0", ...(token ? ["--token-file", tokenFile] : []),
                "--state", path.join(dir, "state.json"), "--output-root", path.join(dir, "out"), "--device", "cpu"];
  const child = spawn(framepipe, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  let port = null;
  const keep = (chunk) => {
    log += chunk;
    // Read before the log is cut to its tail, which may leave this early line out.
    const listening = port === null && LISTENING.exec(log);
    if (listening) port = Number(listening[1]);
    log = log.slice(-20000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = null;
  const exit = new Promise((resolve) => child.on("exit", (code, signal) => { exited = { code, signal }; resolve(exited); }));
  child.on("error", (e) => keep(`spawn ${framepipe}: ${e.message}\n`));

  const server = {
    url: null, port: null, dir, args,
    log: () => log,
    async stop() {
      if (!exited) {
        child.kill("SIGTERM");  // drain: outputs finalized, exit 0
        let timer;
        const late = new Promise((resolve) => { timer = setTimeout(() => resolve(null), drainWithinMs); });
        const done = await Promise.race([exit, late]);
        clearTimeout(timer);  // a pending timer would keep node alive for its whole length
        if (!done) { child.kill("SIGKILL"); await exit; }
      }
      fs.rmSync(dir, { recursive: true, force: true });
      return exited;
    },
  };

  const deadline = Date.now() + readyWithinMs;
  for (;;) {
    if (exited) {
      await server.stop();
      throw new Error(`framepipe serve (${args.join(" ")}) exited (${JSON.stringify(exited)}) before it was ready:\n${log}`);
    }
    if (port !== null && server.port === null) {
      server.port = port;
      server.url = `http://127.0.0.1:${port}`;
    }
    if (server.url) {
      try {
        const response = await fetch(server.url + "/readyz", { signal: AbortSignal.timeout(2000) });
        if (response.status === 200) return server;
      } catch { /* not answering yet */ }
    }
    if (Date.now() > deadline) {
      await server.stop();
      const where = server.url ? `on ${server.url}/readyz` : "(it never said where it listens)";
      throw new Error(`framepipe serve (${args.join(" ")}) not ready ${where} within ${readyWithinMs} ms:\n${log}`);
    }
    await sleep(100);
  }
}
