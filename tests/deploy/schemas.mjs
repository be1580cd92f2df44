// Every rendered object checked offline against the Kubernetes API schemas, as an API server
// would: types, enums and required fields by kubernetes-models' validators, and unknown
// fields (a misspelt `readOnlyRootFileSystem` that the server would drop, or refuse under
// strict field validation) by the field lists of its type declarations, which its validators
// do not check. PodMonitor is a Prometheus Operator CRD, not in kubernetes-models: its
// required shape is checked by hand.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, "node_modules");

// "apps/v1" -> kubernetes-models/apps/v1; "v1" -> kubernetes-models/v1.
function modelDir(apiVersion) {
  return path.join(modules, "kubernetes-models", ...apiVersion.split("/"));
}

// The fields of the interface declared in a .d.ts file: name -> {map, array, ref: .d.ts of
// a nested interface or null}. Parsed from the declaration's own layout (one field a line,
// 4 spaces in; a map's value type on the next line).
const declarations = new Map();
function fieldsOf(file) {
  if (declarations.has(file)) return declarations.get(file);
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const imports = new Map();
  for (const line of lines) {
    const m = line.match(/^import \{ (\w+) \} from "([^"]+)";/);
    if (!m) continue;
    const target = m[2].startsWith(".") ? path.join(path.dirname(file), m[2]) : path.join(modules, m[2]);
    imports.set(m[1], target.replace(/\.js$/, "") + ".d.ts");
  }
  const start = lines.findIndex((l) => /^export interface I\w+/.test(l));
  let fields = null;  // a type alias (IntOrString, Quantity): a leaf
  if (start >= 0) {
    fields = new Map();
    for (let i = start + 1; i < lines.length && lines[i] !== "}"; ++i) {
      const m = lines[i].match(/^ {4}"([^"]+)"\??: (.*)$/);
      if (!m) continue;
      let type = m[2];
      const map = type === "{";
      if (map) type = lines[++i].replace(/^\s*\[key: string\]: /, "");
      type = type.replace(/;$/, "");
      const array = /^Array</.test(type);
      const name = (type.match(/\bI[A-Z]\w*/) || [])[0];
      fields.set(m[1], { map, array, ref: name && imports.has(name) ? imports.get(name) : null });
    }
  }
  declarations.set(file, fields);
  return fields;
}

function unknownFields(value, file, where, problems) {
  const fields = fieldsOf(file);
  if (!fields || value === null || typeof value !== "object" || Array.isArray(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const field = fields.get(key);
    if (!field) {
      problems.push(`${where}.${key}: unknown field`);
      continue;
    }
    if (!field.ref) continue;
    const items = field.map ? Object.entries(child || {}) : field.array ? (child || []).map((c, i) => [i, c]) : [[null, child]];
    for (const [k, item] of items) {
      const at = k === null ? `${where}.${key}` : field.map ? `${where}.${key}.${k}` : `${where}.${key}[${k}]`;
      unknownFields(item, field.ref, at, problems);
    }
  }
}

function checkPodMonitor(object, problems) {
  const where = `PodMonitor/${object.metadata?.name}`;
  if (object.apiVersion !== "monitoring.coreos.com/v1") problems.push(`${where}: apiVersion ${object.apiVersion}, not monitoring.coreos.com/v1`);
  if (!object.metadata?.name) problems.push(`${where}: no metadata.name`);
  const spec = object.spec || {};
  if (!spec.selector || typeof spec.selector !== "object") problems.push(`${where}: spec.selector is required`);
  const endpoints = spec.podMetricsEndpoints;
  if (!Array.isArray(endpoints) || endpoints.length === 0) problems.push(`${where}: spec.podMetricsEndpoints must be a non-empty list`);
  for (const [i, e] of (endpoints || []).entries()) {
    const known = ["port", "portNumber", "targetPort", "path", "scheme", "interval", "scrapeTimeout", "authorization",
      "bearerTokenSecret", "basicAuth", "oauth2", "tlsConfig", "honorLabels", "honorTimestamps", "relabelings",
      "metricRelabelings", "params", "proxyUrl", "followRedirects", "enableHttp2", "filterRunning", "trackTimestampsStaleness"];
    for (const key of Object.keys(e)) if (!known.includes(key)) problems.push(`${where}: podMetricsEndpoints[${i}].${key}: unknown field`);
    if (typeof e.port !== "string" && typeof e.portNumber !== "number") problems.push(`${where}: podMetricsEndpoints[${i}] names no port`);
    const auth = e.authorization;
    if (auth) {
      if (auth.type !== undefined && typeof auth.type !== "string") problems.push(`${where}: authorization.type must be a string`);
      if (typeof auth.credentials?.name !== "string" || typeof auth.credentials?.key !== "string")
        problems.push(`${where}: podMetricsEndpoints[${i}].authorization.credentials needs name and key (a Secret's)`);
    }
  }
}

// The problems found in the objects, as "Kind/name: path: message" lines; [] when valid.
export async function validateObjects(objects) {
  const problems = [];
  for (const object of objects) {
    const { apiVersion, kind } = object;
    const where = `${kind}/${object.metadata?.name}`;
    if (kind === "PodMonitor") {
      checkPodMonitor(object, problems);
      continue;
    }
    const dir = modelDir(apiVersion || "");
    const declaration = path.join(dir, `${kind}.d.ts`);
    if (!apiVersion || !fs.existsSync(declaration)) {
      problems.push(`${where}: no schema for ${apiVersion} ${kind}`);
      continue;
    }
    const Model = (await import(pathToFileURL(path.join(dir, `${kind}.js`)).href))[kind];
    try {
      new Model(object).validate();
    } catch (e) {
      problems.push(`${where}: ${e.message}`);
    }
    unknownFields(object, declaration, where, problems);
  }
  return problems;
}
