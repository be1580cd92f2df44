// deploy/k8s without a cluster: each overlay and the Job rendered by the real `kubectl
// kustomize`, every object validated offline against the Kubernetes API schemas
// (schemas.mjs), and the framepipe pods checked against what framepipe itself does — the
// flags its commands take, its probe and drain endpoints (a real `framepipe serve`), its
// pipeline files (`framepipe validate`) — and against what a GPU pod on Kubernetes needs.
//
//   node k8s_manifests_test.mjs --framepipe BUILD/bin/framepipe --k8s deploy/k8s [--kubectl PATH]
//
// Exit status: 0 pass, 1 fail (every problem on stderr; a kubectl older than 1.22, whose
// kustomize lacks `replacements`, too), 2 bad arguments, 77 skipped: kubectl or this
// folder's node_modules is missing (tools/setup.sh installs both; CI refuses the skip:
// tools/check-skips.sh).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    framepipe: { type: "string" },
    k8s: { type: "string" },
    kubectl: { type: "string", default: process.env.KUBECTL || "kubectl" },
  },
});
if (!opt.framepipe || !opt.k8s) {
  console.error("usage: node k8s_manifests_test.mjs --framepipe BIN --k8s DEPLOY_K8S_DIR [--kubectl PATH]");
  process.exit(2);
}

// The only skips are the two below, before anything is checked: past them (`checking`) a
// missing part is a failure, since a skip would hide what was found so far.
// "k8s_manifests_test: FAILED..." is the failure line tools/check-skips.sh knows a script's by.
let checking = false;
function skip(reason) {
  if (checking) {
    console.error(`k8s_manifests_test: FAILED: ${reason} (found once checking had begun: no skip then)`);
    process.exit(1);
  }
  console.log(`Skipped: ${reason}`);
  process.exit(77);
}
try {
  execFileSync(opt.kubectl, ["version", "--client"], { stdio: "ignore", timeout: 30000 });
} catch {
  skip(`${opt.kubectl} is not installed (Debian package kubernetes-client; tools/setup.sh)`);
}
for (const module of ["kubernetes-models", "yaml"])
  if (!fs.existsSync(path.join(here, "node_modules", module)))
    skip(`${module} is not installed in tests/deploy/node_modules (npm ci there; tools/setup.sh)`);
checking = true;

const { copyTree, kubectlVersion, render, writeOverlay } = await import("./render.mjs");
const { parse: parseYaml } = await import("yaml");
// Not a skip: deploy/k8s cannot be rendered by it, which is what this test is to find out.
const [major, minor] = (kubectlVersion(opt.kubectl) || "0.0").split(".").map(Number);
if (major === 1 && minor < 22) {
  console.error(`k8s_manifests_test: FAILED: ${opt.kubectl} is ${major}.${minor}, whose kustomize (v2.0.3 in Debian bookworm's 1.20) ` +
    "lacks `replacements`, which keep FRAMEPIPE_REPLICAS equal to replicas: deploy/k8s needs kubectl >= 1.22 " +
    "(kustomize >= v4.1); give one with --kubectl or KUBECTL");
  process.exit(1);
}
const { validateObjects } = await import("./schemas.mjs");
const { commandFlags, probeServer, validatePipeline } = await import("./framepipe_cli.mjs");

const scale = Math.max(1, Number(process.env.FRAMEPIPE_TEST_TIME_SCALE) || 1);
// What the kubelet needs beyond the drain itself: the preStop call (curl -m 5) and the exit.
const GRACE_MARGIN_S = 10;
// The startup probe is /livez: it answers from serve's first moment, while /readyz stays 503
// until every stream of the state file and the list is back, which may take longer than
// any fixed startup budget for thousands of streams.
const SERVE_PROBES = { livenessProbe: ["/livez"], readinessProbe: ["/readyz"], startupProbe: ["/livez"] };

const problems = [];
const fail = (where, message) => {
  problems.push(`${where}: ${message}`);
  return null;
};

// Kubernetes' own $(VAR) expansion of args, from the container's env; a fieldRef's value is
// only known in the pod, so a stand-in of its shape is used.
const FIELD_EXAMPLES = { "status.podIP": "10.1.2.3", "metadata.name": "framepipe-0" };
function expandArgs(container, where) {
  const env = new Map();
  for (const e of container.env || []) {
    const field = e.valueFrom?.fieldRef?.fieldPath;
    env.set(e.name, e.value ?? (field ? FIELD_EXAMPLES[field] ?? "0" : undefined));
  }
  return (container.args || []).map((arg) => String(arg).replace(/\$\((\w+)\)/g, (whole, name) => {
    if (env.get(name) === undefined) fail(where, `args use $(${name}), which the container's env does not define (the kubelet would pass it literally)`);
    return env.get(name) ?? whole;
  }));
}

// {flag: value} of an args list; flags without a value (--quiet) map to true.
function parseFlags(args) {
  const flags = {};
  const positional = [];
  for (let i = 0; i < args.length; ++i) {
    if (args[i].startsWith("-")) {
      const [name, inline] = args[i].split(/=(.*)/s);
      flags[name] = inline ?? (i + 1 < args.length && !args[i + 1].startsWith("--") ? args[++i] : true);
    } else positional.push(args[i]);
  }
  return { flags, positional };
}

const envValue = (container, name) => (container.env || []).find((e) => e.name === name);
const podOf = (workload) => workload.spec.template.spec;
const byKind = (objects, kind) => objects.filter((o) => o.kind === kind);
const named = (objects, kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name);

// The file a container sees at PATH: the volume mounted above it and the key/path within.
function mountAt(pod, container, file) {
  const mount = (container.volumeMounts || []).filter((m) => file === m.mountPath || file.startsWith(m.mountPath + "/"))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  if (!mount) return null;
  return { mount, volume: (pod.volumes || []).find((v) => v.name === mount.name), rest: path.posix.relative(mount.mountPath, file) };
}

// The ConfigMap or Secret entry behind a file in the container, or a problem.
function projectedFile(objects, pod, container, file, where) {
  const at = mountAt(pod, container, file);
  if (!at || !at.volume) return fail(where, `${file} is on no volume of the pod`);
  const source = at.volume.configMap ? ["ConfigMap", at.volume.configMap.name, at.volume.configMap.items]
    : at.volume.secret ? ["Secret", at.volume.secret.secretName, at.volume.secret.items] : null;
  if (!source) return fail(where, `${file} is on volume ${at.volume.name}, which is no ConfigMap or Secret`);
  const [kind, name, items] = source;
  const object = named(objects, kind, name);
  if (!object) return fail(where, `${file}: the ${kind} ${name} is not in the rendered objects`);
  const key = items ? items.find((i) => i.path === at.rest)?.key : at.rest;
  const data = { ...(object.data || {}), ...(object.stringData || {}) };
  if (!key || !(key in data)) return fail(where, `${file}: ${kind} ${name} has no key giving ${at.rest}`);
  if (at.mount.subPath) fail(where, `${file} is mounted with subPath: the kubelet never updates it`);
  return { kind, name, key, text: kind === "Secret" && object.data ? Buffer.from(data[key], "base64").toString() : data[key], mount: at.mount };
}

// The container that runs `framepipe COMMAND`: the binary as its command (from the image's
// PATH, or a path to it), the subcommand first in its args.
function framepipeContainer(pod, subcommand) {
  return pod.containers.find((c) => path.posix.basename(String((c.command || [])[0] || "")) === "framepipe" &&
    (c.command || []).length === 1 && (c.args || [])[0] === subcommand);
}

function checkImageAndSecurity(workload, where) {
  const pod = podOf(workload);
  for (const c of [...(pod.initContainers || []), ...pod.containers]) {
    const image = String(c.image || "");
    const tag = image.includes("@") ? "digest" : image.slice(image.lastIndexOf("/") + 1).split(":")[1];
    if (!tag) fail(where, `container ${c.name}: image ${image} has no tag (that is :latest)`);
    else if (tag === "latest") fail(where, `container ${c.name}: image ${image} is :latest, not a pinned version`);
    if (c.securityContext?.readOnlyRootFilesystem !== true) fail(where, `container ${c.name}: readOnlyRootFilesystem is not true`);
    if (c.securityContext?.allowPrivilegeEscalation !== false) fail(where, `container ${c.name}: allowPrivilegeEscalation is not false`);
    if ((c.securityContext?.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true) fail(where, `container ${c.name}: runAsNonRoot is not true`);
    if ((c.securityContext?.runAsUser ?? pod.securityContext?.runAsUser) === 0) fail(where, `container ${c.name}: runs as user 0`);
  }
}

// GPU: one per pod, with the driver capabilities the NVIDIA toolkit must mount (video:
// NVDEC's libnvcuvid); or none at all, on the CPU.
function checkGpu(container, flags, where, wantGpu) {
  const limit = container.resources?.limits?.["nvidia.com/gpu"];
  const request = container.resources?.requests?.["nvidia.com/gpu"];
  if (wantGpu) {
    if (String(limit) !== "1") fail(where, `limits nvidia.com/gpu is ${limit}, not 1 (one GPU per pod)`);
    if (request !== undefined && String(request) !== String(limit)) fail(where, `requests nvidia.com/gpu ${request} differs from the limit ${limit}`);
    const caps = String(envValue(container, "NVIDIA_DRIVER_CAPABILITIES")?.value || "").split(",");
    for (const cap of ["compute", "utility", "video"])
      if (!caps.includes(cap)) fail(where, `NVIDIA_DRIVER_CAPABILITIES lacks ${cap} (it is '${caps.join(",")}')`);
    if (!/^cuda/.test(flags["--device"] || "")) fail(where, `--device is ${flags["--device"]}: a GPU pod should ask for cuda (auto would fall back to the CPU unseen)`);
  } else {
    if (limit !== undefined || request !== undefined) fail(where, `asks for nvidia.com/gpu (${limit ?? request}) in a CPU overlay`);
    if (flags["--device"] !== "cpu") fail(where, `--device is ${flags["--device"]}, not cpu`);
  }
}

// Written paths: on a mounted volume that is neither read-only nor a ConfigMap or Secret
// (a StatefulSet's volumeClaimTemplates count: each pod gets its own claim).
function checkWritable(workload, container, file, where) {
  const pod = podOf(workload);
  const claims = (workload.spec.volumeClaimTemplates || []).map((t) => ({ name: t.metadata.name, persistentVolumeClaim: {} }));
  const at = mountAt({ ...pod, volumes: [...(pod.volumes || []), ...claims] }, container, file);
  if (!at || !at.volume || at.mount.readOnly || at.volume.configMap || at.volume.secret)
    fail(where, `${file} is written, but the root filesystem is read-only and it is on no writable volume`);
}

function checkFlagsKnown(args, knownFlags, command, where) {
  for (const arg of args)
    if (arg.startsWith("-") && !knownFlags.has(arg.split("=")[0]))
      fail(where, `'${arg}' is not a flag of \`framepipe ${command}\` (its --help does not list it)`);
}

function checkServe(objects, sts, { label, gpu, serveFlags, token }) {
  const where = `${label}: StatefulSet/${sts.metadata.name}`;
  const pod = podOf(sts);
  const container = framepipeContainer(pod, "serve");
  if (!container) return fail(where, "no container runs `framepipe serve` (command [framepipe], args [serve, ...])");
  const args = expandArgs(container, where);
  checkFlagsKnown(args, serveFlags, "serve", where);
  const { flags, positional } = parseFlags(args.slice(1));
  checkImageAndSecurity(sts, where);
  checkGpu(container, flags, where, gpu);

  // Sharding: --shard auto divides the list by FRAMEPIPE_REPLICAS, which must be the
  // number of pods, and by the hostname's ordinal, which only a StatefulSet gives.
  if (flags["--shard"] !== "auto") fail(where, `--shard is ${flags["--shard"]}, not auto`);
  const replicasEnv = envValue(container, "FRAMEPIPE_REPLICAS")?.value;
  if (replicasEnv !== String(sts.spec.replicas))
    fail(where, `FRAMEPIPE_REPLICAS is ${JSON.stringify(replicasEnv)} but spec.replicas is ${sts.spec.replicas}: pods would shard the list wrongly`);

  // The API: on the pod IP, with a token, the token file being the Secret's.
  const listen = flags["--listen"] || "";
  const rawListen = (container.args || [])[(container.args || []).indexOf("--listen") + 1] || "";
  const podIp = envValue(container, "POD_IP")?.valueFrom?.fieldRef?.fieldPath;
  if (!/^\$\(POD_IP\):\d+$/.test(rawListen) || podIp !== "status.podIP")
    fail(where, `--listen is '${rawListen}': it should be $(POD_IP):PORT with POD_IP from status.podIP`);
  const listenPort = Number(listen.split(":").pop());
  const tokenFile = flags["--token-file"];
  let secret = null;
  if (typeof tokenFile !== "string") fail(where, "no --token-file: serve off loopback refuses to start without one");
  else {
    secret = projectedFile(objects, pod, container, tokenFile, where);
    if (secret && secret.kind !== "Secret") fail(where, `--token-file ${tokenFile} comes from a ${secret.kind}, not a Secret`);
    if (secret && secret.text.trim() !== token) fail(where, `the Secret behind --token-file does not hold the token written in base/token.txt`);
  }

  // Probes: serve's unauthenticated endpoints, on --probe-listen's port (a listener of their
  // own, so the API's clients cannot make them fail), or the API's where there is none.
  const rawProbeListen = (container.args || []).includes("--probe-listen")
    ? container.args[container.args.indexOf("--probe-listen") + 1] : "";
  if (rawProbeListen && !/^\$\(POD_IP\):\d+$/.test(rawProbeListen))
    fail(where, `--probe-listen is '${rawProbeListen}': it should be $(POD_IP):PORT (the kubelet probes the pod IP)`);
  const probePort = rawProbeListen ? Number(rawProbeListen.split(":").pop()) : listenPort;
  const ports = new Map((container.ports || []).map((p) => [p.name, p.containerPort]));
  for (const [probe, paths] of Object.entries(SERVE_PROBES)) {
    const get = container[probe]?.httpGet;
    if (!get) { fail(where, `no ${probe} with httpGet`); continue; }
    if (!paths.includes(get.path)) fail(where, `${probe} path is ${get.path}, not ${paths.join(" or ")}`);
    const port = typeof get.port === "string" ? ports.get(get.port) : get.port;
    if (port !== probePort) fail(where, `${probe} port ${get.port} (${port}) is not the port serve answers probes on (${probePort})`);
  }

  // Drain: preStop posts /v1/drain; the grace period covers --drain-timeout and a margin.
  const drain = Number(flags["--drain-timeout"] ?? 30);
  const grace = pod.terminationGracePeriodSeconds ?? 30;
  if (!(grace >= drain + GRACE_MARGIN_S))
    fail(where, `terminationGracePeriodSeconds ${grace} < --drain-timeout ${drain} + ${GRACE_MARGIN_S} s: the kubelet would kill a draining pod`);
  const preStop = container.lifecycle?.preStop?.exec?.command;
  if (!preStop || !preStop.join(" ").includes("/v1/drain")) fail(where, "no preStop exec posting /v1/drain");

  // Written paths on writable volumes; the stream list and the pipelines from ConfigMaps.
  checkWritable(sts, container, flags["--state"] || "", where);
  checkWritable(sts, container, path.posix.join(flags["--output-root"] || "", "x"), where);
  checkWritable(sts, container, "/tmp/x", where);
  const pipelines = positional.map((file) => ({ file, entry: projectedFile(objects, pod, container, file, where) }));
  // The stream list: each stream's template (default: the first file's stem) is one of them.
  let streamList = null;
  if (typeof flags["--stream-list"] !== "string") fail(where, "no --stream-list");
  else streamList = projectedFile(objects, pod, container, flags["--stream-list"], where);
  const templates = positional.map((file) => path.posix.basename(file).replace(/\.ya?ml$/, ""));
  const streams = streamList ? parseYaml(streamList.text)?.streams : null;
  if (streamList && !Array.isArray(streams)) fail(where, `${flags["--stream-list"]} has no \`streams:\` list`);
  for (const stream of streams || [])
    if (!templates.includes(stream.pipeline ?? templates[0]))
      fail(where, `stream ${stream.name} runs template ${stream.pipeline}, which no pipeline file of serve's args is (${templates.join(", ")})`);

  // The Service, the PDB and the PodMonitor find these pods.
  const labels = sts.spec.template.metadata.labels || {};
  const selects = (selector) => selector && Object.entries(selector).every(([k, v]) => labels[k] === v);
  const service = named(objects, "Service", sts.spec.serviceName);
  if (!service) fail(where, `serviceName ${sts.spec.serviceName}: no such Service rendered`);
  else {
    if (service.spec.clusterIP !== "None") fail(where, `Service ${service.metadata.name} is not headless (clusterIP: None)`);
    if (!selects(service.spec.selector)) fail(where, `Service ${service.metadata.name} does not select the pods`);
  }
  if (!byKind(objects, "PodDisruptionBudget").some((p) => selects(p.spec.selector?.matchLabels)))
    fail(where, "no PodDisruptionBudget selects the pods");
  const annotations = sts.spec.template.metadata.annotations || {};
  if (annotations["prometheus.io/scrape"] !== "true" || Number(annotations["prometheus.io/port"]) !== listenPort)
    fail(where, `prometheus.io/scrape and prometheus.io/port (${annotations["prometheus.io/port"]}) do not point at port ${listenPort}`);
  const monitors = byKind(objects, "PodMonitor").filter((m) => selects(m.spec.selector?.matchLabels));
  if (monitors.length === 0) fail(where, "no PodMonitor selects the pods");
  for (const m of monitors)
    for (const e of m.spec.podMetricsEndpoints || []) {
      if (ports.get(e.port) !== listenPort) fail(where, `PodMonitor ${m.metadata.name} scrapes port ${e.port}, not serve's`);
      const cred = e.authorization?.credentials || e.bearerTokenSecret;
      if (!secret || cred?.name !== secret.name || cred?.key !== secret.key)
        fail(where, `PodMonitor ${m.metadata.name} does not send the token of Secret ${secret?.name} (key ${secret?.key}): /metrics answers 401 without it`);
    }
  return { container, listenPort, probeListen: Boolean(rawProbeListen), tokenFile, drain, preStop, pipelines, streamList, streamCount: (streams || []).length, metricsPath: monitors[0]?.spec.podMetricsEndpoints?.[0]?.path || "/metrics" };
}

function checkJob(objects, job, { label, runFlags }) {
  const where = `${label}: Job/${job.metadata.name}`;
  const pod = podOf(job);
  const container = framepipeContainer(pod, "run");
  if (!container) return fail(where, "no container runs `framepipe run` (command [framepipe], args [run, ...])");
  if (job.spec.completionMode !== "Indexed") fail(where, `completionMode is ${job.spec.completionMode}, not Indexed`);
  const rawShard = (container.args || [])[(container.args || []).indexOf("--shard") + 1];
  if (rawShard !== "$(JOB_COMPLETION_INDEX)/$(FRAMEPIPE_SHARDS)")
    fail(where, `--shard is '${rawShard}', not $(JOB_COMPLETION_INDEX)/$(FRAMEPIPE_SHARDS)`);
  const shards = envValue(container, "FRAMEPIPE_SHARDS")?.value;
  if (shards !== String(job.spec.completions))
    fail(where, `FRAMEPIPE_SHARDS is ${JSON.stringify(shards)} but spec.completions is ${job.spec.completions}: files would run twice or never`);
  const index = envValue(container, "JOB_COMPLETION_INDEX")?.valueFrom?.fieldRef?.fieldPath;
  if (index !== "metadata.annotations['batch.kubernetes.io/job-completion-index']")
    fail(where, `JOB_COMPLETION_INDEX comes from ${index}, not the completion-index annotation`);
  const args = expandArgs(container, where);
  checkFlagsKnown(args, runFlags, "run", where);
  const { flags, positional } = parseFlags(args.slice(1));
  checkImageAndSecurity(job, where);
  checkGpu(container, flags, where, true);
  checkWritable(job, container, "/tmp/x", where);
  const pipeline = projectedFile(objects, pod, container, positional[0] || "", where);
  return { container, pipeline, pod };
}

// Where the pipelines' text is written for `framepipe validate`; the Job's file list is
// pointed at a copy of the rendered one (its outputs need not exist to validate).
function validatePipelines(framepipe, entries, where, rewrite = (t) => t) {
  const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR || "/tmp"), "framepipe-k8s-pipelines-"));
  for (const { file, entry } of entries) {
    if (!entry) continue;
    const local = path.join(dir, path.basename(file));
    fs.writeFileSync(local, rewrite(entry.text, dir));
    const said = validatePipeline(framepipe, local);
    if (said) fail(where, `${file} does not validate:\n${said}`);
  }
}

const { root, token } = copyTree(opt.k8s);
const serveFlags = commandFlags(opt.framepipe, "serve");
const runFlags = commandFlags(opt.framepipe, "run");

// The replacements block of the base: what an overlay that changes replicas repeats.
const baseKustomization = fs.readFileSync(path.join(root, "base", "kustomization.yaml"), "utf8");
const blockFrom = (text) => (/^replacements:/m.test(text) ? text.slice(text.search(/^replacements:/m)) : "");
const replacementsBlock = blockFrom(baseKustomization);
if (!/^replacements:/m.test(baseKustomization)) fail("base/kustomization.yaml", "no replacements block keeps FRAMEPIPE_REPLICAS equal to replicas");
// A user's overlay scaling the gpu one to 5 pods, as README's "Run on Kubernetes" says.
writeOverlay(root, "test-replicas-5",
  `resources:\n  - ../gpu\nreplicas:\n  - name: framepipe\n    count: 5\n${replacementsBlock}`);
const jobKustomization = fs.readFileSync(path.join(root, "job", "kustomization.yaml"), "utf8");
const jobScaled = path.join(root, "job-test-completions-5");
fs.mkdirSync(jobScaled);
fs.writeFileSync(path.join(jobScaled, "kustomization.yaml"),
  `resources:\n  - ../job\npatches:\n  - target: {kind: Job, name: framepipe-batch}\n    patch: |-\n` +
  `      - {op: replace, path: /spec/completions, value: 5}\n${blockFrom(jobKustomization)}`);

const cases = [
  { dir: ".", name: "deploy/k8s (the default)", gpu: true },
  { dir: "overlays/gpu", gpu: true, probe: true },
  { dir: "overlays/cpu", gpu: false },
  { dir: "overlays/test-replicas-5", gpu: true, replicas: 5 },
  { dir: "job", job: true },
  { dir: "job-test-completions-5", job: true, completions: 5 },
];
for (const c of cases) {
  const label = c.name ?? c.dir;
  let objects;
  try {
    objects = render(opt.kubectl, path.join(root, c.dir));
  } catch (e) {
    fail(label, e.message);
    continue;
  }
  for (const p of await validateObjects(objects)) fail(label, `schema: ${p}`);
  const before = problems.length;
  if (c.job) {
    const jobs = byKind(objects, "Job");
    if (jobs.length !== 1) { fail(label, `${jobs.length} Jobs rendered, not 1`); continue; }
    if (c.completions && jobs[0].spec.completions !== c.completions) fail(label, `completions ${jobs[0].spec.completions}, not ${c.completions}`);
    const checked = checkJob(objects, jobs[0], { label, runFlags });
    if (checked?.pipeline && !c.completions) {
      // The file list the pipeline reads must be the ConfigMap's, mounted in the pod.
      const listPath = (checked.pipeline.text.match(/list:\s*([^\s}]+)/) || [])[1];
      const list = listPath && projectedFile(objects, checked.pod, checked.container, listPath, `${label}: Job/${jobs[0].metadata.name}`);
      if (!listPath) fail(label, "the Job's pipeline reads no `inputs: {list: FILE}`");
      validatePipelines(opt.framepipe, [{ file: "batch.yaml", entry: checked.pipeline }], label, (text, dir) => {
        fs.writeFileSync(path.join(dir, "files.txt"), list?.text || "");
        return text.split(listPath).join(path.join(dir, "files.txt"));
      });
    }
  } else {
    const sets = byKind(objects, "StatefulSet");
    if (sets.length !== 1) { fail(label, `${sets.length} StatefulSets rendered, not 1`); continue; }
    if (c.replicas && sets[0].spec.replicas !== c.replicas) fail(label, `replicas ${sets[0].spec.replicas}, not ${c.replicas}`);
    const checked = checkServe(objects, sets[0], { label, gpu: c.gpu, serveFlags, token });
    if (checked && c.probe) {
      validatePipelines(opt.framepipe, checked.pipelines, label);
      const template = checked.pipelines.find((p) => p.entry);
      if (template && checked.preStop && checked.streamList) {
        const dir = fs.mkdtempSync(path.join(root, "serve-"));
        const file = path.join(dir, path.basename(template.file));
        fs.writeFileSync(file, template.entry.text);
        const streamList = path.join(dir, "streams.yaml");
        fs.writeFileSync(streamList, checked.streamList.text);
        // The paths the manifest's probes ask for, asked of a real serve.
        const probePaths = Object.keys(SERVE_PROBES).map((probe) => checked.container[probe]?.httpGet?.path)
          .filter((p, i, all) => p && all.indexOf(p) === i);
        const found = await probeServer(opt.framepipe, { pipeline: file, streamList, streamCount: checked.streamCount, token, probePaths, metricsPath: checked.metricsPath,
          preStop: checked.preStop, tokenPath: checked.tokenFile, listenPort: checked.listenPort, probeListen: checked.probeListen,
          boundMs: 20000 * scale });
        for (const p of found) fail(`${label} (a real framepipe serve)`, p);
        if (!found.length)
          console.log(`k8s_manifests_test: ${label}: a real framepipe serve reads the ${checked.streamCount} streams of the list, ` +
            `answers ${probePaths.join(" and ")} without the token, ${checked.metricsPath} only with it, and drains and exits 0 on the pod's preStop command`);
      }
    }
  }
  if (problems.length === before) console.log(`k8s_manifests_test: ${label}: ${objects.length} objects valid and checked`);
}
fs.rmSync(root, { recursive: true, force: true });

if (problems.length) {
  console.error(`k8s_manifests_test: FAILED: ${problems.length} problem${problems.length === 1 ? "" : "s"}:`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
console.log("k8s_manifests_test: every overlay and the Job render, validate and match framepipe");
