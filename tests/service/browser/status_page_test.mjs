// The status page in a real browser: Debian's headless Chromium, driven by playwright-core
// (no browser download). Creates two streams through the API, opens GET / and waits — bounded —
// until the page lists both as running and each one's thumbnail <img> has loaded a real
// picture (naturalWidth > 0), then until both thumbnails have been replaced by newer frames.
// A third stream's URI and error carry markup, which the page must show as text. A script
// error or a Content-Security-Policy refusal in the page fails the test too. On failure it
// says, per stream, what the page showed.
//
//   node status_page_test.mjs --framepipe BUILD/bin/framepipe --pipeline PIPELINE.yaml
//       starts its own `framepipe serve` (loopback, with a bearer token: the page has to send
//       it, from #token=..., on every request and fetch the thumbnails as blobs)
//   node status_page_test.mjs --url http://127.0.0.1:8080 [--token TOKEN] [--pipeline-name NAME]
//       against a server that is already running (it adds, then deletes, the streams
//       page-a, page-b and page-markup there)
//   either with --screenshot FILE.png: the page as an operator sees it, once the wait is over
//
// Exit status: 0 pass, 1 fail (the reason on stderr), 2 bad arguments or set-up.
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { startServer } from "./framepipe_server.mjs";

const { values: opt } = parseArgs({
  options: {
    framepipe: { type: "string" },
    pipeline: { type: "string" },
    url: { type: "string" },
    token: { type: "string" },
    "pipeline-name": { type: "string" },
    screenshot: { type: "string" },
    chromium: { type: "string", default: process.env.CHROMIUM || "/usr/bin/chromium" },
    "timeout-s": { type: "string", default: "30" },
  },
});

// Every bound scaled like the C++ tests' (tests/time_bound.hpp): slower builds set the scale.
const scale = Math.max(1, Number(process.env.FRAMEPIPE_TEST_TIME_SCALE) || 1);
const bound = (seconds) => seconds * 1000 * scale;
const STREAMS = ["page-a", "page-b"];
// Small, paced (the template has realtime: true), endless: running until the test removes it.
const INPUT = "testsrc://320x180@15?frames=0&noise=10";
// A stream whose URI (and so its error: nothing listens on loopback port 9) carries markup: the
// page must show it as text. Were it parsed, the <img> would run its onerror and set a global.
const MARKUP_STREAM = "page-markup";
const MARKUP = "<img src=x onerror=window.framepipeInjected=1>";
const MARKUP_INPUT = `rtsp://127.0.0.1:9/${MARKUP}`;

const started = Date.now();
// Each phase with its time, so a slow or failed run shows where the time went.
const step = (what) => console.log(`status_page_test: ${((Date.now() - started) / 1000).toFixed(1)} s: ${what}`);

function usage(message) {
  console.error(`status_page_test: ${message}`);
  process.exit(2);
}

// What this machine lacks (the GPU machine has no Chromium): exit 77, which ctest counts as a
// skip, saying why. CI refuses such a skip (tools/check-skips.sh allows no "not installed").
// Only before anything is checked (main() sets `checking`): a skip then would hide what the
// checks found. "status_page_test: FAILED" is the failure line tools/check-skips.sh knows.
let checking = false;
function notInstalled(message) {
  if (checking) {
    console.error(`status_page_test: FAILED: ${message} (found once checking had begun: no skip then)`);
    process.exit(1);
  }
  console.log(`Skipped: ${message}`);
  process.exit(77);
}

if (Number(process.versions.node.split(".")[0]) < 20) usage(`node ${process.version}: playwright-core needs node 20 or newer`);
let chromium;
try {
  ({ chromium } = await import("playwright-core"));
} catch (e) {
  notInstalled(`playwright-core is not installed in ${path.dirname(new URL(import.meta.url).pathname)} ` +
        `(${e.code || e.message}): tools/setup.sh installs it (npm ci)`);
}
if (!fs.existsSync(opt.chromium)) notInstalled(`chromium is not installed (no ${opt.chromium}; Debian package chromium; tools/setup.sh)`);

async function api(base, token, method, route, body) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(base + route, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(bound(10)),
  });
  const text = await response.text();
  return { status: response.status, text };
}

// What the page shows, read from its DOM: each card's name, state text, and its thumbnail.
function readPage() {
  return [...document.querySelectorAll("[data-stream]")].map((card) => {
    const img = card.querySelector("img.snapshot");
    return {
      name: card.dataset.stream,
      state: card.querySelector(".state")?.textContent ?? null,
      fps: card.querySelector('[data-field="fps"]')?.textContent ?? null,
      error: card.querySelector(".last-error")?.textContent ?? "",
      thumbnail: img ? { complete: img.complete, naturalWidth: img.naturalWidth, shown: img.classList.contains("has-frame"),
                         src: img.getAttribute("src") || "" } : null,
    };
  });
}

// What keeps each of the test's streams from passing, by name ([] when none).
function shortfalls(seen) {
  const wrong = [];
  for (const name of STREAMS) {
    const card = seen.find((c) => c.name === name);
    if (!card) wrong.push(`${name}: not on the page`);
    else if (card.state !== "running") wrong.push(`${name}: state '${card.state}', not 'running'`);
    else if (!card.thumbnail || !card.thumbnail.complete || card.thumbnail.naturalWidth <= 0 || !card.thumbnail.shown)
      wrong.push(`${name}: no loaded thumbnail (${JSON.stringify(card.thumbnail)})`);
  }
  return wrong;
}
const satisfied = (seen) => shortfalls(seen).length === 0;

async function main() {
  checking = true;
  let server = null;
  let base = opt.url;
  let token = opt.token || "";
  let pipelineName = opt["pipeline-name"];
  if (!base) {
    if (!opt.framepipe || !opt.pipeline) usage("give --url URL, or --framepipe BIN --pipeline FILE to start a server");
    token = token || `page-test-${process.pid}-${Date.now()}`;
    try {
      server = await startServer({ framepipe: opt.framepipe, pipelines: [opt.pipeline], token, readyWithinMs: bound(30),
                                   drainWithinMs: bound(20) });
    } catch (e) {
      console.error(`status_page_test: FAILED: ${e.message}`);
      process.exit(1);
    }
    base = server.url;
    step(`framepipe serve ready on ${base}`);
    pipelineName = pipelineName || path.basename(opt.pipeline).replace(/\.[^.]*$/, "");
  }
  if (!pipelineName) usage("--pipeline-name NAME: which of the server's templates the streams use");

  const problems = [];
  let browser = null;
  let seen = [];
  const pageErrors = [];
  try {
    for (const [name, uri] of [...STREAMS.map((n) => [n, INPUT]), [MARKUP_STREAM, MARKUP_INPUT]]) {
      const put = await api(base, token, "PUT", `/v1/streams/${name}`, { pipeline: pipelineName, uri });
      if (put.status !== 201 && put.status !== 200) throw new Error(`PUT /v1/streams/${name}: ${put.status} ${put.text}`);
    }

    step(`created ${STREAMS.join(", ")}`);
    browser = await chromium.launch({
      executablePath: opt.chromium,
      // Chromium's sandbox needs an unprivileged user: as root (CI and these containers run as
      // root) Chromium refuses to start without --no-sandbox. The page it loads is our own,
      // from loopback, so the sandbox protects nothing here.
      args: process.getuid && process.getuid() === 0 ? ["--no-sandbox"] : [],
      timeout: bound(30),
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // A script error or a Content-Security-Policy refusal is a broken page even when the
    // streams show (the CSP is served with the page: it must allow what the page does).
    page.on("pageerror", (e) => pageErrors.push(`script error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && /Content.Security.Policy/i.test(m.text())) pageErrors.push(`CSP: ${m.text()}`);
    });
    const response = await page.goto(base + "/" + (token ? `#token=${encodeURIComponent(token)}` : ""), { timeout: bound(15) });
    const type = response.headers()["content-type"] || "";
    if (response.status() !== 200 || !/^text\/html/.test(type)) problems.push(`GET / answered ${response.status()} ${type}`);
    if (!response.headers()["content-security-policy"]) problems.push("GET / has no Content-Security-Policy header");

    step("page loaded");
    const deadline = Date.now() + bound(Number(opt["timeout-s"]));
    for (;;) {
      seen = await page.evaluate(readPage);
      if (satisfied(seen) || Date.now() > deadline) break;
      await page.waitForTimeout(250);
    }
    if (satisfied(seen)) {
      step("both streams running on the page, both thumbnails loaded");
      // Refreshed, not loaded once: each thumbnail is replaced by a newer frame (a new blob)
      // within a few of the page's refresh periods, and stays loaded through the swap.
      const first = new Map(seen.map((card) => [card.name, card.thumbnail.src]));
      const refreshed = (cards) => STREAMS.every((name) => {
        const card = cards.find((c) => c.name === name);
        return card && card.thumbnail.src !== first.get(name) && card.thumbnail.naturalWidth > 0;
      });
      const until = Date.now() + bound(15);
      while (!refreshed(seen) && Date.now() < until) {
        await page.waitForTimeout(250);
        seen = await page.evaluate(readPage);
      }
      if (refreshed(seen)) step("both thumbnails refreshed");
      else problems.push(`within ${bound(15) / 1000} s the thumbnails of ${STREAMS.join(" and ")} were not replaced by newer frames`);
    } else {
      problems.push(`within ${bound(Number(opt["timeout-s"])) / 1000} s the page did not show ${STREAMS.join(" and ")} ` +
                    "as running, each with a loaded thumbnail (naturalWidth > 0):", ...shortfalls(seen).map((w) => "  " + w));
      const banner = await page.evaluate(() => document.getElementById("problem-text")?.textContent ?? "");
      if (banner) problems.push(`the page's error banner: ${banner}`);
    }
    // The markup in a stream's URI and error is shown as text, and nothing of it ran or was
    // made an element.
    const markup = await page.evaluate((name) => {
      const card = document.querySelector(`[data-stream="${name}"]`);
      return {
        listed: !!card,
        uri: card?.querySelector(".uri")?.textContent ?? "",
        error: card?.querySelector(".last-error")?.textContent ?? "",
        injected: window.framepipeInjected === 1,
        strayImages: [...document.querySelectorAll("img")].filter((img) => !img.classList.contains("snapshot")).length,
      };
    }, MARKUP_STREAM);
    if (!markup.listed) problems.push(`${MARKUP_STREAM} (a URI with markup) is not on the page`);
    else if (!markup.uri.includes(MARKUP)) problems.push(`${MARKUP_STREAM}: its URI is not shown as text: ${JSON.stringify(markup.uri)}`);
    if (markup.error && !markup.error.includes(MARKUP)) problems.push(`${MARKUP_STREAM}: its error lost the markup text: ${JSON.stringify(markup.error)}`);
    if (markup.injected || markup.strayImages) problems.push(`${MARKUP_STREAM}: markup from the server became part of the page (${JSON.stringify(markup)})`);

    // The token is taken out of the address bar once read.
    if (token && page.url().includes(token)) problems.push(`the token stayed in the address bar: ${page.url()}`);
    problems.push(...pageErrors);
    if (opt.screenshot) {
      await page.screenshot({ path: opt.screenshot, fullPage: true });
      console.log(`status_page_test: screenshot in ${opt.screenshot}`);
    }
  } catch (e) {
    problems.push(e.message);
  } finally {
    if (browser) await browser.close().catch(() => {});
    for (const name of [...STREAMS, MARKUP_STREAM]) await api(base, token, "DELETE", `/v1/streams/${name}`).catch(() => {});
  }

  console.log(`status_page_test: the page showed ${seen.length} stream(s):` +
              seen.map((card) => "\n  " + JSON.stringify(card)).join(""));
  if (server) {
    const exited = await server.stop();
    step("framepipe serve stopped");
    if (problems.length) console.error(`framepipe serve's output:\n${server.log()}`);
    if (exited && exited.code !== 0) problems.push(`framepipe serve ended with ${JSON.stringify(exited)} after SIGTERM (drain should exit 0)`);
  }
  if (problems.length) {
    console.error("status_page_test: FAILED\n  " + problems.join("\n  "));
    process.exit(1);
  }
  console.log("status_page_test: passed (both streams running on the page, both thumbnails loaded and refreshed)");
}

const hardLimit = setTimeout(() => {
  console.error("status_page_test: FAILED: still running after its overall bound; something hung");
  process.exit(1);
}, bound(Number(opt["timeout-s"]) + 120));
hardLimit.unref();
await main();
