// deploy/k8s rendered as `kubectl apply -k` would send it: `kubectl kustomize` on a
// temporary copy of the tree (so that the test can add the token file the user supplies, and
// overlays of its own, without touching the source), parsed into plain objects.
import { execFileSync } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseAllDocuments } from "yaml";

// The tree copied to a temporary folder, with base/token.txt written as the user would.
export function copyTree(k8sDir) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "framepipe-k8s-"));
  fs.cpSync(k8sDir, root, { recursive: true, filter: (src) => path.basename(src) !== "token.txt" });
  const token = crypto.randomBytes(24).toString("base64url");
  fs.writeFileSync(path.join(root, "base", "token.txt"), `${token}\n`);
  return { root, token };
}

// An overlay of the test's own, beside the others: DIR/overlays/NAME/kustomization.yaml.
export function writeOverlay(root, name, kustomization) {
  const dir = path.join(root, "overlays", name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "kustomization.yaml"), kustomization);
  return dir;
}

// kubectl's version, as "1.32"; null when it does not say. Its kustomize renders deploy/k8s
// from 1.22 on (kustomize v4.1: `replacements`).
export function kubectlVersion(kubectl) {
  try {
    const out = execFileSync(kubectl, ["version", "--client", "-o", "json"], { encoding: "utf8", timeout: 30000 });
    const v = JSON.parse(out).clientVersion;
    return `${v.major}.${String(v.minor).replace(/\D.*$/, "")}`;
  } catch {
    return null;
  }
}

// The objects `kubectl kustomize DIR` renders; a failure says what kubectl said.
export function render(kubectl, dir) {
  let out;
  try {
    out = execFileSync(kubectl, ["kustomize", dir], { encoding: "utf8", timeout: 60000, stdio: ["ignore", "pipe", "pipe"] });
  } catch (e) {
    throw new Error(`kubectl kustomize ${dir} failed: ${(e.stderr || e.message).trim()}`);
  }
  const objects = [];
  for (const doc of parseAllDocuments(out)) {
    if (doc.errors.length) throw new Error(`kubectl kustomize ${dir}: unparsable YAML: ${doc.errors[0].message}`);
    const object = doc.toJS();
    if (object) objects.push(object);
  }
  return objects;
}
