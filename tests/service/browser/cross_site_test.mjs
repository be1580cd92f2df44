// A web page cannot drive a `framepipe serve` that has no token (loopback, as a first run
// has it), tried in a real browser — Debian's headless Chromium, driven by playwright-core:
//   cross-site   a page served from another origin (http://127.0.0.2:P) sends what any page
//                may send without asking: fetch(..., {mode: "no-cors"}) POSTs with text/plain
//                bodies (a DeepStream stream/add, a drain), a navigator.sendBeacon drain, a
//                form POST; and a CORS PUT, which needs a preflight;
//   rebinding    the browser resolves evil.test to 127.0.0.1 (--host-resolver-rules), as
//                DNS rebinding makes it: the page at http://evil.test:PORT/ is then
//                "same-origin" with the service, and its script PUTs a stream.
// Afterwards, asked directly: no stream was added, the service is not draining.
//
//   node cross_site_test.mjs --framepipe BUILD/bin/framepipe --pipeline PIPELINE.yaml
// Exit status: 0 pass, 1 fail (the reason on stderr), 2 bad arguments, 77 Chromium or
// playwright-core missing (CI refuses that skip: tools/check-skips.sh).
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "./framepipe_server.mjs";

const { values: opt } = parseArgs({
  options: {
    framepipe: { type: "string" },
    pipeline: { type: "string" },
    chromium: { type: "string", default: process.env.CHROMIUM || "/usr/bin/chromium" },
  },
});
const scale = Math.max(1, Number(process.env.FRAMEPIPE_TEST_TIME_SCALE) || 1);
const bound = (seconds) => seconds * 1000 * scale;
const say = (what) => console.log(`cross_site_test: ${what}`);

if (!opt.framepipe || !opt.pipeline) { console.error("cross_site_test: give --framepipe BIN --pipeline FILE"); process.exit(2); }
// The only skips (exit 77), both here, before anything is checked. "cross_site_test: FAILED"
// is the failure line tools/check-skips.sh knows a script's by.
let chromium;
try {
  ({ chromium } = await import("playwright-core"));
} catch (e) {
  console.log(`Skipped: playwright-core is not installed (${e.code || e.message}): tools/setup.sh installs it (npm ci)`);
  process.exit(77);
}
if (!fs.existsSync(opt.chromium)) {
  console.log(`Skipped: chromium is not installed (no ${opt.chromium}; Debian package chromium; tools/setup.sh)`);
  process.exit(77);
}

// The attacker's page: every request a page may send to another site without asking, then
// a CORS PUT (refused at its preflight). The fetches are awaited here; the beacon and the form
// POST, which a page cannot await, by the browser's own events (sentAndAnswered, below).
function attackerPage(target, pipeline) {
  const add = JSON.stringify({ key: "sensor", value: { camera_id: "evil-add", camera_url: "testsrc://64x48@5?frames=0", change: "camera_add" } });
  const put = JSON.stringify({ pipeline, uri: "testsrc://64x48@5?frames=0" });
  return `<!doctype html><html><body>
<form id="form" method="POST" action="${target}/v1/streams/evil-form" enctype="text/plain" target="sink">
  <input name='{"uri": "testsrc://64x48@5?frames=0", "x": "' value='"}'></form>
<iframe name="sink"></iframe>
<script>
const settle = (p) => p.then(() => "sent", (e) => "refused: " + e.message);
(async () => {
  const results = await Promise.all([
    settle(fetch(${JSON.stringify(target + "/api/v1/stream/add")}, { method: "POST", mode: "no-cors", headers: { "Content-Type": "text/plain" }, body: ${JSON.stringify(add)} })),
    settle(fetch(${JSON.stringify(target + "/v1/drain")}, { method: "POST", mode: "no-cors" })),
    settle(fetch(${JSON.stringify(target + "/v1/streams/evil-cors")}, { method: "PUT", headers: { "Content-Type": "application/json" }, body: ${JSON.stringify(put)} })),
  ]);
  results.push("beacon " + navigator.sendBeacon(${JSON.stringify(target + "/v1/drain")}, "{}"));
  document.getElementById("form").submit();
  window.results = results;
  window.done = true;
})();
</script></body></html>`;
}

// Resolves once the browser has sent a request of `type` (Playwright's resourceType: a
// beacon is "ping", a form's POST into a frame "document") to a URL ending in `suffix` and
// has its answer (or its failure): the requests a page cannot await. Listening starts before
// the page loads, so none is missed; bounded by the caller's wait.
function sentAndAnswered(page, type, suffix) {
  return new Promise((resolve) => {
    const seen = (request) => {
      if (request.resourceType() !== type || !request.url().endsWith(suffix)) return;
      page.off("requestfinished", seen);
      page.off("requestfailed", seen);
      resolve(`${request.method()} ${suffix} (${type})`);
    };
    page.on("requestfinished", seen);
    page.on("requestfailed", seen);
  });
}

function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} not within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function streamNames(base) {
  const response = await fetch(base + "/v1/streams", { signal: AbortSignal.timeout(bound(10)) });
  return (await response.json()).streams.map((s) => s.name);
}

// Asked directly (no Origin, the right Host): none of `names` exists and /readyz is 200.
async function checkNothingChanged(base, names, who, problems) {
  let present;
  try {
    present = await streamNames(base);
  } catch (e) {
    problems.push(`the service no longer answers after ${who}'s visit (${e.message}): it was drained`);
    return;
  }
  for (const evil of names) if (present.includes(evil)) problems.push(`${who} added the stream ${evil}`);
  const ready = await fetch(base + "/readyz", { signal: AbortSignal.timeout(bound(10)) });
  if (ready.status !== 200) problems.push(`/readyz answers ${ready.status} after ${who}'s visit: it drained the service`);
}

async function main() {
  const pipeline = path.basename(opt.pipeline).replace(/\.[^.]*$/, "");
  const server = await startServer({ framepipe: opt.framepipe, pipelines: [opt.pipeline], token: "", readyWithinMs: bound(30),
                                     drainWithinMs: bound(20) });
  const attacker = http.createServer((req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end(attackerPage(server.url, pipeline));
  });
  await new Promise((resolve) => attacker.listen(0, "127.0.0.2", resolve));
  const attackerUrl = `http://127.0.0.2:${attacker.address().port}/`;
  const problems = [];
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: opt.chromium,
      // As root (CI) Chromium needs --no-sandbox. evil.test resolves to the service's address,
      // as a rebinding attacker's DNS makes it.
      args: [...(process.getuid && process.getuid() === 0 ? ["--no-sandbox"] : []),
             "--host-resolver-rules=MAP evil.test 127.0.0.1", "--disable-background-networking"],
      timeout: bound(30),
    });
    const page = await browser.newPage();
    const unawaited = Promise.all([sentAndAnswered(page, "ping", "/v1/drain"),
                                   sentAndAnswered(page, "document", "/v1/streams/evil-form")]);
    await page.goto(attackerUrl, { timeout: bound(20) });
    await page.waitForFunction(() => window.done === true, null, { timeout: bound(20) });
    say(`cross-site page sent: ${JSON.stringify(await page.evaluate(() => window.results))}`);
    // The beacon and the form reached the service and were answered before it is asked.
    say(`and answered: ${JSON.stringify(await within(unawaited, bound(20), "the beacon and the form POST answered"))}`);
    await checkNothingChanged(server.url, ["evil-add", "evil-cors", "evil-form"], "a page of another origin", problems);

    if (!problems.length) {
      const rebinding = await browser.newPage();
      const navigation = await rebinding.goto(`http://evil.test:${server.port}/`, { timeout: bound(20) });
      const put = await rebinding.evaluate(async (pipelineName) => {
        try {
          const r = await fetch("/v1/streams/evil-rebound", { method: "PUT", headers: { "Content-Type": "application/json" },
                                                              body: JSON.stringify({ pipeline: pipelineName, uri: "testsrc://64x48@5?frames=0" }) });
          return r.status;
        } catch (e) {
          return `refused: ${e.message}`;
        }
      }, pipeline);
      say(`rebinding page: GET / answered ${navigation?.status()}, its PUT ${put}`);
      if (navigation?.status() === 200) problems.push("the status page answered a rebinding page's Host (evil.test)");
      await checkNothingChanged(server.url, ["evil-rebound"], "a rebinding page", problems);
    }
  } catch (e) {
    problems.push(e.message);
  } finally {
    if (browser) await browser.close();
    attacker.close();
    const exited = await server.stop();
    if (exited && exited.code !== 0) problems.push(`framepipe serve ended with ${JSON.stringify(exited)} (the drain should exit 0)\n${server.log()}`);
  }
  if (problems.length) {
    console.error(`cross_site_test: FAILED:\n  ${problems.join("\n  ")}`);
    process.exit(1);
  }
  say("no web page added, replaced or drained anything");
}

await main();
