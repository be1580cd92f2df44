// Starts a real `framepipe serve` for a test and stops it: on a free loopback port, with its
// own state file, output root and bearer token in a temporary folder, ready once /readyz
// answers 200. Every wait is bounded; the server's own output is kept for the failure report.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

// A port the kernel just gave out and took back: free now, and unlikely to be handed to
// anyone else within the moment before the server binds it.
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// `token` empty: a server without one (loopback, as a first run has it).
export async function startServer({ framepipe, pipelines, token, readyWithinMs, drainWithinMs }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "framepipe-page-test-"));
  const tokenFile = path.join(dir, "token");
  if (token) fs.writeFileSync(tokenFile, token + "\n", { mode: 0o600 });
  fs.mkdirSync(path.join(dir, "out"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const args = ["serve", ...pipelines, "--listen", `127.0.0.1:${port}`, ...(token ? ["--token-file", tokenFile] : []),
                "--state", path.join(dir, "state.json"), "--output-root", path.join(dir, "out"), "--device", "cpu"];
  const child = spawn(framepipe, args, { stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  const keep = (chunk) => { log = (log + chunk).slice(-20000); };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  let exited = null;
  const exit = new Promise((resolve) => child.on("exit", (code, signal) => { exited = { code, signal }; resolve(exited); }));
  child.on("error", (e) => keep(`spawn ${framepipe}: ${e.message}\n`));

  const server = {
    url, port, dir, args,
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
    try {
      const response = await fetch(url + "/readyz", { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return server;
    } catch { /* not listening yet */ }
    if (Date.now() > deadline) {
      await server.stop();
      throw new Error(`framepipe serve (${args.join(" ")}) not ready on ${url}/readyz within ${readyWithinMs} ms:\n${log}`);
    }
    await sleep(100);
  }
}
