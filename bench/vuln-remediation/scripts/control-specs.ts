// Per case: the reference fix (what a correct agent does, really run against the npm registry by
// curate-snapshot.ts), the needless major bump its near-miss uses, and the smoke check that proves an
// installed tree still runs (only where the snapshot carries the tarballs). Near-miss kinds are declared
// in ../near-misses.yaml; curate-snapshot.ts derives each case's variants from its reference.
import type { ControlSpec, TextEdit } from "./spec-types.ts";
import { GROWN_CONTROLS } from "./grown-case-specs.ts";

const LOCK_ONLY = ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"] as const;
const UPDATE = (name: string) =>
  ["update", name, "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"] as const;
const bump = (name: string, from: string, to: string): TextEdit => ({
  path: "package.json",
  oldText: `"${name}": "${from}"`,
  newText: `"${name}": "${to}"`,
});
const override = (parent: string, parentSpec: string, name: string, spec: string): TextEdit => ({
  path: "package.json",
  oldText: `  "dependencies": {\n    "${parent}": "${parentSpec}"\n  }\n`,
  newText: `  "dependencies": {\n    "${parent}": "${parentSpec}"\n  },\n  "overrides": {\n    "${name}": "${spec}"\n  }\n`,
});

const smoke = (body: string) =>
  `// The case's smoke check: run by the rubric on the tree installed from the registry snapshot.\n"use strict";\nconst assert = require("node:assert/strict");\n\nmodule.exports = async function smoke(load, scratch) {\n${body}\n};\n`;

const ORIGINAL_CONTROLS: Readonly<Record<string, ControlSpec>> = {
  "lodash-template-cve-2021-23337": {
    reference: { edits: [bump("lodash", "^4.17.20", "^4.17.21")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "lodash has no release past 4.x" },
    smoke: smoke(
      `  const { renderWelcome } = load("./src/render-email.js");\n  assert.equal(renderWelcome("Hi <%= user.name %>", { name: "Ada" }), "Hi Ada");`,
    ),
  },
  "minimist-transitive-cve-2021-44906": {
    reference: { edits: [], npm: [UPDATE("minimist")] },
    needlessMajor: { edits: [bump("mkdirp", "^0.5.5", "^1.0.4")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { prepareDirs } = load("./src/prepare-dirs.js");\n  prepareDirs(scratch);\n  assert.ok(require("node:fs").statSync(require("node:path").join(scratch, "logs")).isDirectory());`,
    ),
  },
  "semver-redos-6x-cve-2022-25883": {
    reference: { edits: [bump("semver", "^6.3.0", "^6.3.1")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("semver", "^6.3.0", "^7.5.2")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { isCompatible } = load("./src/check-engines.js");\n  assert.equal(isCompatible("1.4.0", { host: "^1.2.0" }), true);\n  assert.equal(isCompatible("2.0.0", { host: "^1.2.0" }), false);`,
    ),
  },
  "cross-spawn-redos-cve-2024-21538": {
    reference: { edits: [bump("cross-spawn", "^7.0.3", "^7.0.5")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "cross-spawn has no release past 7.x" },
    smoke: smoke(
      `  const { runFormatter } = load("./src/run-tool.js");\n  assert.equal(typeof runFormatter, "function");\n  assert.equal(typeof load("cross-spawn").sync, "function");`,
    ),
  },
  "braces-transitive-cve-2024-4068": {
    reference: { edits: [], npm: [UPDATE("braces")] },
    needlessMajor: { notApplicable: "neither braces nor fast-glob has a release past 3.x" },
    smoke: smoke(
      `  const fs = require("node:fs");\n  const path = require("node:path");\n  fs.mkdirSync(path.join(scratch, "assets"), { recursive: true });\n  fs.writeFileSync(path.join(scratch, "assets", "logo.svg"), "<svg/>");\n  const { listAssets } = load("./src/list-assets.js");\n  assert.deepEqual(await listAssets(scratch, ["assets/*.{svg,png}"]), ["assets/logo.svg"]);`,
    ),
  },
  "micromatch-redos-cve-2024-4067": {
    reference: { edits: [bump("micromatch", "^4.0.5", "^4.0.8")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "micromatch has no release past 4.x" },
    smoke: smoke(
      `  const { ownedPaths } = load("./src/filter-paths.js");\n  assert.deepEqual(ownedPaths(["src/a.js", "docs/b.md", "src/{c,d}.js"], ["src/**"]), ["src/a.js", "src/{c,d}.js"]);`,
    ),
  },
  "path-to-regexp-via-express-cve-2024-45296": {
    reference: { edits: [bump("express", "^4.19.2", "^4.21.2")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("express", "^4.19.2", "^5.1.0")], npm: [LOCK_ONLY] },
    smoke: null,
  },
  "ws-headers-dos-7x-cve-2024-37890": {
    reference: { edits: [bump("ws", "^7.5.9", "^7.5.10")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("ws", "^7.5.9", "^8.17.1")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { startLiveUpdates } = load("./src/live-updates.js");\n  assert.equal(typeof startLiveUpdates, "function");\n  assert.equal(typeof load("ws").Server, "function");`,
    ),
  },
  "tough-cookie-via-request-cve-2023-26136": {
    reference: { edits: [override("request", "^2.88.2", "tough-cookie", "^4.1.3")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [override("request", "^2.88.2", "tough-cookie", "^5.1.2")], npm: [LOCK_ONLY] },
    smoke: null,
  },
  "node-fetch-major-cve-2022-0235": {
    reference: { edits: [bump("node-fetch", "^1.7.3", "^2.6.7")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("node-fetch", "^1.7.3", "^3.1.1")], npm: [LOCK_ONLY] },
    // The service is CommonJS: it needs node-fetch to be require()-able and to export fetch itself.
    smoke: smoke(
      `  const { upstreamStatus } = load("./src/status-client.js");\n  assert.equal(typeof upstreamStatus, "function");\n  assert.equal(typeof load("node-fetch"), "function", "require('node-fetch') is not the fetch function");`,
    ),
  },
  "follow-redirects-two-advisories": {
    reference: { edits: [bump("follow-redirects", "^1.15.3", "^1.15.6")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "follow-redirects has no release past 1.x" },
    smoke: smoke(
      `  const { download } = load("./src/download.js");\n  assert.equal(typeof download, "function");\n  assert.equal(typeof load("follow-redirects").https.get, "function");`,
    ),
  },
  "postcss-line-return-cve-2023-44270": {
    reference: { edits: [bump("postcss", "^8.4.24", "^8.4.31")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "postcss has no release past 8.x" },
    smoke: smoke(
      `  const { sanitizeTheme } = load("./src/build-css.js");\n  const css = await sanitizeTheme("a { color: red } /* note */");\n  assert.ok(css.includes("color: red") && !css.includes("note"), css);`,
    ),
  },
  "express-open-redirect-cve-2024-29041": {
    reference: { edits: [bump("express", "^4.18.2", "^4.19.2")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("express", "^4.18.2", "^5.1.0")], npm: [LOCK_ONLY] },
    smoke: null,
  },
  "json5-proto-1x-cve-2022-46175": {
    reference: { edits: [bump("json5", "^1.0.1", "^1.0.2")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("json5", "^1.0.1", "^2.2.3")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const fs = require("node:fs");\n  const path = require("node:path");\n  fs.writeFileSync(path.join(scratch, "deploy.json5"), "{ replicas: 2, // two\\n region: 'eu', }");\n  const { loadConfig } = load("./src/load-config.js");\n  assert.deepEqual(loadConfig(path.join(scratch, "deploy.json5")), { replicas: 2, region: "eu" });`,
    ),
  },
  "semver-already-patched-negative": {
    reference: { edits: [], npm: [] },
    needlessMajor: { notApplicable: "a negative case: the right change is none" },
    smoke: smoke(
      `  const { sortTags } = load("./src/release-notes.js");\n  assert.equal(typeof sortTags, "function");`,
    ),
  },
};

export const CONTROLS: Readonly<Record<string, ControlSpec>> = { ...ORIGINAL_CONTROLS, ...GROWN_CONTROLS };
