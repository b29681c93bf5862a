// The vuln-remediation corpus as data: each case's project, the real advisory it carries, what the
// rubric accepts, and the scripted agent session its synthetic cassette replays. `curate-cases.ts`
// turns these into cases/<id>/ (lockfiles resolved from the real npm registry).
// Advisory ranges are the GitHub Advisory Database's affected ranges for the npm ecosystem.
// The cases added later (grown-case-specs.ts) are written compactly there and appended here.
import { GROWN_CASES } from "./grown-case-specs.ts";

export interface Advisory {
  readonly id: string;
  readonly cve: string;
  readonly package: string;
  /** A node-semver range of the affected versions. */
  readonly vulnerable_range: string;
  readonly patched_versions: readonly string[];
  readonly severity: "low" | "moderate" | "high" | "critical";
  readonly summary: string;
}

export type Adapter = "claude-code" | "codex" | "gemini";

export interface TextEdit {
  readonly path: string;
  readonly oldText: string;
  readonly newText: string;
}

export interface AgentScript {
  readonly adapter: Adapter;
  /** completed: the session ran to its end; refused / auth_error: nothing was changed. */
  readonly outcome: "completed" | "refused" | "auth_error";
  readonly opening: string;
  readonly edits: readonly TextEdit[];
  /** npm commands the agent ran in its workspace after editing (really run at curation time). */
  readonly npm: readonly (readonly string[])[];
  readonly finalMessage: string;
  readonly costUsd: number | null;
  /** What this session is meant to show in the aggregate. */
  readonly note: string;
}

export interface VulnCaseSpec {
  readonly id: string;
  readonly title: string;
  readonly difficulty: "easy" | "medium" | "hard";
  readonly disposition: "positive" | "negative";
  readonly curationClass: "rag-corpus-derived" | "held-out";
  readonly advisories: readonly Advisory[];
  /** The vulnerable package the case is about. */
  readonly package: string;
  readonly dependencies: Readonly<Record<string, string>>;
  /** Versions the original lockfile had (older than what the ranges resolve to today). */
  readonly lockedDirect?: Readonly<Record<string, string>>;
  readonly lockedTransitive?: Readonly<Record<string, string>>;
  readonly source: { readonly path: string; readonly content: string };
  readonly expected: {
    readonly minimal_fixed_version: string | null;
    readonly max_major: Readonly<Record<string, number>>;
    readonly allowed_files: readonly string[];
    readonly allowed_dependency_changes: readonly string[];
    readonly accepted_fixes: string;
  };
  readonly agent: AgentScript;
}

const GHSA = {
  lodash: {
    id: "GHSA-35jh-r3h4-6jhm",
    cve: "CVE-2021-23337",
    package: "lodash",
    vulnerable_range: "<4.17.21",
    patched_versions: ["4.17.21"],
    severity: "high",
    summary: "Command injection via the `variable` option of _.template",
  },
  minimist: {
    id: "GHSA-xvch-5gv4-984h",
    cve: "CVE-2021-44906",
    package: "minimist",
    vulnerable_range: "<0.2.4 || >=1.0.0 <1.2.6",
    patched_versions: ["0.2.4", "1.2.6"],
    severity: "critical",
    summary: "Prototype pollution through crafted argument keys",
  },
  semver: {
    id: "GHSA-c2qf-rxjj-qqgw",
    cve: "CVE-2022-25883",
    package: "semver",
    vulnerable_range: "<5.7.2 || >=6.0.0 <6.3.1 || >=7.0.0 <7.5.2",
    patched_versions: ["5.7.2", "6.3.1", "7.5.2"],
    severity: "moderate",
    summary: "Regular expression denial of service in new Range()",
  },
  crossSpawn: {
    id: "GHSA-3xgq-45jj-v275",
    cve: "CVE-2024-21538",
    package: "cross-spawn",
    vulnerable_range: "<6.0.6 || >=7.0.0 <7.0.5",
    patched_versions: ["6.0.6", "7.0.5"],
    severity: "high",
    summary: "Regular expression denial of service when escaping arguments",
  },
  braces: {
    id: "GHSA-grv7-fg5c-xmjg",
    cve: "CVE-2024-4068",
    package: "braces",
    vulnerable_range: "<3.0.3",
    patched_versions: ["3.0.3"],
    severity: "high",
    summary: "Uncontrolled resource consumption on imbalanced braces",
  },
  micromatch: {
    id: "GHSA-952p-6rrq-rcjv",
    cve: "CVE-2024-4067",
    package: "micromatch",
    vulnerable_range: "<4.0.8",
    patched_versions: ["4.0.8"],
    severity: "moderate",
    summary: "Regular expression denial of service in micromatch.braces()",
  },
  pathToRegexp: {
    id: "GHSA-9wv6-86v2-598j",
    cve: "CVE-2024-45296",
    package: "path-to-regexp",
    vulnerable_range: "<0.1.10 || >=0.2.0 <1.9.0 || >=2.0.0 <3.3.0 || >=4.0.0 <6.3.0 || >=7.0.0 <8.0.0",
    patched_versions: ["0.1.10", "1.9.0", "3.3.0", "6.3.0", "8.0.0"],
    severity: "high",
    summary: "Backtracking regular expressions for routes with two parameters in one segment",
  },
  ws: {
    id: "GHSA-3h5v-q93c-6h6q",
    cve: "CVE-2024-37890",
    package: "ws",
    vulnerable_range: ">=2.1.0 <5.2.4 || >=6.0.0 <6.2.3 || >=7.0.0 <7.5.10 || >=8.0.0 <8.17.1",
    patched_versions: ["5.2.4", "6.2.3", "7.5.10", "8.17.1"],
    severity: "high",
    summary: "Denial of service when a request has more headers than server.maxHeadersCount",
  },
  toughCookie: {
    id: "GHSA-72xf-g2v4-qvf3",
    cve: "CVE-2023-26136",
    package: "tough-cookie",
    vulnerable_range: "<4.1.3",
    patched_versions: ["4.1.3"],
    severity: "moderate",
    summary: "Prototype pollution in CookieJar with rejectPublicSuffixes=false",
  },
  nodeFetch: {
    id: "GHSA-r683-j2x4-v87g",
    cve: "CVE-2022-0235",
    package: "node-fetch",
    vulnerable_range: "<2.6.7 || >=3.0.0 <3.1.1",
    patched_versions: ["2.6.7", "3.1.1"],
    severity: "high",
    summary: "Cookie and Authorization headers forwarded to a third-party host on redirect",
  },
  followRedirects2023: {
    id: "GHSA-jchw-25xp-jwwc",
    cve: "CVE-2023-26159",
    package: "follow-redirects",
    vulnerable_range: "<1.15.4",
    patched_versions: ["1.15.4"],
    severity: "moderate",
    summary: "Improper input validation: url.parse() accepts hostnames that new URL() rejects",
  },
  followRedirects2024: {
    id: "GHSA-cxjh-pqwp-8mfp",
    cve: "CVE-2024-28849",
    package: "follow-redirects",
    vulnerable_range: "<1.15.6",
    patched_versions: ["1.15.6"],
    severity: "moderate",
    summary: "Proxy-Authorization header kept across hosts on redirect",
  },
  postcss: {
    id: "GHSA-7fh5-64p2-3v2j",
    cve: "CVE-2023-44270",
    package: "postcss",
    vulnerable_range: "<8.4.31",
    patched_versions: ["8.4.31"],
    severity: "moderate",
    summary: "Line return parsing error lets a comment smuggle CSS past a linter",
  },
  express: {
    id: "GHSA-rv95-896h-c2vc",
    cve: "CVE-2024-29041",
    package: "express",
    vulnerable_range: "<4.19.2 || >=5.0.0-alpha.1 <5.0.0-beta.3",
    patched_versions: ["4.19.2", "5.0.0-beta.3"],
    severity: "moderate",
    summary: "Open redirect in res.location() and res.redirect() with malformed URLs",
  },
  json5: {
    id: "GHSA-9c47-m6qq-7p4h",
    cve: "CVE-2022-46175",
    package: "json5",
    vulnerable_range: "<1.0.2 || >=2.0.0 <2.2.2",
    patched_versions: ["1.0.2", "2.2.2"],
    severity: "high",
    summary: "Prototype pollution in JSON5.parse through __proto__ keys",
  },
} as const satisfies Record<string, Advisory>;

const LOCK_ONLY = ["install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"] as const;
const bump = (name: string, from: string, to: string): TextEdit => ({ path: "package.json", oldText: `"${name}": "${from}"`, newText: `"${name}": "${to}"` });
const MANIFEST_AND_LOCK = ["package.json", "package-lock.json"];

const ORIGINAL_CASES: readonly VulnCaseSpec[] = [
  {
    id: "lodash-template-cve-2021-23337",
    title: "lodash 4.17.20: command injection through _.template",
    difficulty: "easy",
    disposition: "positive",
    curationClass: "rag-corpus-derived",
    advisories: [GHSA.lodash],
    package: "lodash",
    dependencies: { lodash: "^4.17.20" },
    lockedDirect: { lodash: "4.17.20" },
    source: {
      path: "src/render-email.js",
      content: `const _ = require("lodash");\n\n// Renders the welcome e-mail from a template stored with the tenant's settings.\nfunction renderWelcome(templateSource, user) {\n  const compiled = _.template(templateSource, { variable: "user" });\n  return compiled(_.pick(user, ["name", "plan", "signupDate"]));\n}\n\nmodule.exports = { renderWelcome };\n`,
    },
    expected: {
      minimal_fixed_version: "4.17.21",
      max_major: { lodash: 4 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["lodash"],
      accepted_fixes: "raise lodash to ^4.17.21 (any 4.x >= 4.17.21) in package.json and the lockfile",
    },
    agent: {
      adapter: "claude-code",
      outcome: "completed",
      opening: "I'll look at the advisory and how lodash is declared and locked.",
      edits: [bump("lodash", "^4.17.20", "^4.17.21")],
      npm: [LOCK_ONLY, ["ls", "lodash", "--package-lock-only"]],
      finalMessage:
        "Raised lodash from ^4.17.20 to ^4.17.21 and refreshed package-lock.json; the lockfile now resolves lodash to a release outside the GHSA-35jh-r3h4-6jhm range. No source changes were needed: `_.template` keeps its API.",
      costUsd: 0.1184,
      note: "fixes the case cleanly",
    },
  },
  {
    id: "minimist-transitive-cve-2021-44906",
    title: "minimist 1.2.5 locked under mkdirp: prototype pollution",
    difficulty: "medium",
    disposition: "positive",
    curationClass: "rag-corpus-derived",
    advisories: [GHSA.minimist],
    package: "minimist",
    dependencies: { mkdirp: "^0.5.5" },
    lockedDirect: { mkdirp: "0.5.5" },
    lockedTransitive: { minimist: "1.2.5" },
    source: {
      path: "src/prepare-dirs.js",
      content: `const mkdirp = require("mkdirp");\nconst path = require("node:path");\n\n// Creates the cache and log directories the worker expects before it starts.\nfunction prepareDirs(root) {\n  for (const dir of ["cache", "logs", "tmp"]) {\n    mkdirp.sync(path.join(root, dir), { mode: 0o750 });\n  }\n}\n\nmodule.exports = { prepareDirs };\n`,
    },
    expected: {
      minimal_fixed_version: "1.2.6",
      max_major: { minimist: 1, mkdirp: 0 },
      allowed_files: ["package-lock.json", "package.json"],
      allowed_dependency_changes: ["minimist", "mkdirp"],
      accepted_fixes: "refresh the lockfile so minimist resolves to >= 1.2.6 (mkdirp's ^1.2.5 range allows it), or move mkdirp to 0.5.6",
    },
    agent: {
      adapter: "codex",
      outcome: "completed",
      opening: "Inspecting how minimist enters the tree",
      edits: [],
      npm: [["ls", "minimist", "--package-lock-only"], ["update", "minimist", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], ["ls", "minimist", "--package-lock-only"]],
      finalMessage:
        "minimist is only a transitive dependency (mkdirp@0.5.5 asks for ^1.2.5), so package.json stays as it is. I ran `npm update minimist --package-lock-only`; the lockfile now pins minimist 1.2.8, which is outside the affected range of GHSA-xvch-5gv4-984h.",
      costUsd: null,
      note: "fixes a transitive advisory with a lockfile-only update",
    },
  },
  {
    id: "semver-redos-6x-cve-2022-25883",
    title: "semver 6.3.0: ReDoS in Range, fixed on the 6.x line",
    difficulty: "medium",
    disposition: "positive",
    curationClass: "rag-corpus-derived",
    advisories: [GHSA.semver],
    package: "semver",
    dependencies: { semver: "^6.3.0" },
    lockedDirect: { semver: "6.3.0" },
    source: {
      path: "src/check-engines.js",
      content: `const semver = require("semver");\n\n// Refuses plugins whose declared engine range excludes the running host version.\nfunction isCompatible(hostVersion, pluginEngines) {\n  const range = pluginEngines && pluginEngines.host;\n  if (!range) return true;\n  return semver.satisfies(hostVersion, range, { includePrerelease: false });\n}\n\nmodule.exports = { isCompatible };\n`,
    },
    expected: {
      minimal_fixed_version: "6.3.1",
      max_major: { semver: 6 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["semver"],
      accepted_fixes: "semver ^6.3.1 (the 6.x line has a patched release; moving to 7.x is an unneeded major upgrade)",
    },
    agent: {
      adapter: "gemini",
      outcome: "completed",
      opening: "I will check the advisory and the current semver version.",
      edits: [bump("semver", "^6.3.0", "^7.5.2")],
      npm: [LOCK_ONLY, ["ls", "semver", "--package-lock-only"]],
      finalMessage:
        "I upgraded semver to ^7.5.2, the patched version listed first for the current major line in the advisory, and regenerated the lockfile. The project now uses semver 7.",
      costUsd: null,
      note: "fixes the advisory but with a needless major bump (6.3.1 exists)",
    },
  },
  {
    id: "cross-spawn-redos-cve-2024-21538",
    title: "cross-spawn 7.0.3: ReDoS when escaping arguments",
    difficulty: "easy",
    disposition: "positive",
    curationClass: "held-out",
    advisories: [GHSA.crossSpawn],
    package: "cross-spawn",
    dependencies: { "cross-spawn": "^7.0.3" },
    lockedDirect: { "cross-spawn": "7.0.3" },
    source: {
      path: "src/run-tool.js",
      content: `const spawn = require("cross-spawn");\n\n// Runs a formatter over the given files and resolves with its exit code.\nfunction runFormatter(bin, files) {\n  return new Promise((resolve, reject) => {\n    const child = spawn(bin, ["--write", ...files], { stdio: "inherit" });\n    child.on("error", reject);\n    child.on("close", resolve);\n  });\n}\n\nmodule.exports = { runFormatter };\n`,
    },
    expected: {
      minimal_fixed_version: "7.0.5",
      max_major: { "cross-spawn": 7 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["cross-spawn"],
      accepted_fixes: "cross-spawn ^7.0.5 in package.json and lockfile",
    },
    agent: {
      adapter: "claude-code",
      outcome: "completed",
      opening: "Let me read the advisory and the manifest first.",
      edits: [bump("cross-spawn", "^7.0.3", "^7.0.5")],
      npm: [LOCK_ONLY, ["ls", "cross-spawn", "--package-lock-only"]],
      finalMessage: "cross-spawn now requires ^7.0.5 and the lockfile resolves it to the latest 7.x patch release, which is not affected by CVE-2024-21538.",
      costUsd: 0.0973,
      note: "fixes the case cleanly",
    },
  },
  {
    id: "braces-transitive-cve-2024-4068",
    title: "braces 3.0.2 under fast-glob: resource exhaustion",
    difficulty: "medium",
    disposition: "positive",
    curationClass: "held-out",
    advisories: [GHSA.braces],
    package: "braces",
    dependencies: { "fast-glob": "^3.3.2" },
    lockedDirect: { "fast-glob": "3.3.2" },
    lockedTransitive: { micromatch: "4.0.5", braces: "3.0.2" },
    source: {
      path: "src/list-assets.js",
      content: `const fg = require("fast-glob");\n\n// Lists the static assets to upload, honouring the user's include patterns.\nasync function listAssets(cwd, patterns) {\n  return fg(patterns, { cwd, onlyFiles: true, dot: false, ignore: ["**/node_modules/**"] });\n}\n\nmodule.exports = { listAssets };\n`,
    },
    expected: {
      minimal_fixed_version: "3.0.3",
      max_major: { braces: 3, "fast-glob": 3 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["braces", "fast-glob"],
      accepted_fixes: "a lockfile update that resolves braces to >= 3.0.3 (fast-glob's micromatch ^4.0.4 / braces ^3.0.2 ranges allow it)",
    },
    agent: {
      adapter: "gemini",
      outcome: "completed",
      opening: "Let me see where braces comes from.",
      edits: [],
      npm: [["ls", "braces", "--package-lock-only"], ["update", "braces", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund"], ["ls", "braces", "--package-lock-only"]],
      finalMessage: "braces is pulled in through fast-glob -> micromatch. Its declared range (^3.0.2) already allows the patched 3.0.3, so I updated only the lockfile entry with `npm update braces --package-lock-only`.",
      costUsd: null,
      note: "fixes a transitive advisory with a lockfile-only update",
    },
  },
  {
    id: "micromatch-redos-cve-2024-4067",
    title: "micromatch 4.0.5: ReDoS in micromatch.braces()",
    difficulty: "easy",
    disposition: "positive",
    curationClass: "rag-corpus-derived",
    advisories: [GHSA.micromatch],
    package: "micromatch",
    dependencies: { micromatch: "^4.0.5" },
    lockedDirect: { micromatch: "4.0.5" },
    lockedTransitive: { braces: "3.0.2" },
    source: {
      path: "src/filter-paths.js",
      content: `const micromatch = require("micromatch");\n\n// Keeps the changed paths that match the reviewer's ownership patterns.\nfunction ownedPaths(changed, patterns) {\n  return micromatch(changed, patterns, { dot: true });\n}\n\nmodule.exports = { ownedPaths };\n`,
    },
    expected: {
      minimal_fixed_version: "4.0.8",
      max_major: { micromatch: 4, braces: 3 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["micromatch", "braces"],
      accepted_fixes: "micromatch ^4.0.8 in package.json and lockfile",
    },
    agent: {
      adapter: "gemini",
      outcome: "completed",
      opening: "Checking the advisory and the declared micromatch range.",
      edits: [bump("micromatch", "^4.0.5", "^4.0.8")],
      npm: [LOCK_ONLY, ["ls", "micromatch", "braces", "--package-lock-only"]],
      finalMessage: "micromatch is now ^4.0.8 and the lockfile resolves micromatch 4.0.8 (with braces 3.0.3), so neither is in an affected range.",
      costUsd: null,
      note: "fixes the case cleanly",
    },
  },
  {
    id: "path-to-regexp-via-express-cve-2024-45296",
    title: "path-to-regexp 0.1.7 pinned by express 4.19.2: ReDoS in route matching",
    difficulty: "hard",
    disposition: "positive",
    curationClass: "held-out",
    advisories: [GHSA.pathToRegexp],
    package: "path-to-regexp",
    dependencies: { express: "^4.19.2" },
    lockedDirect: { express: "4.19.2" },
    source: {
      path: "src/server.js",
      content: `const express = require("express");\n\nconst app = express();\n\n// Two parameters in one segment: exactly the route shape CVE-2024-45296 is about.\napp.get("/files/:name-:revision", (req, res) => {\n  res.json({ name: req.params.name, revision: req.params.revision });\n});\n\nmodule.exports = { app };\n`,
    },
    expected: {
      minimal_fixed_version: "0.1.10",
      max_major: { express: 4, "path-to-regexp": 0 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["express", "path-to-regexp"],
      accepted_fixes: "express >= 4.20.0 (which pins path-to-regexp 0.1.10+), or an overrides entry path-to-regexp 0.1.x >= 0.1.10; express 5 is an unneeded major upgrade",
    },
    agent: {
      adapter: "claude-code",
      outcome: "completed",
      opening: "path-to-regexp isn't a direct dependency here; let me find what pins it.",
      edits: [bump("express", "^4.19.2", "^4.21.2")],
      npm: [["ls", "path-to-regexp", "--package-lock-only"], LOCK_ONLY, ["ls", "path-to-regexp", "--package-lock-only"]],
      finalMessage:
        "express 4.19.2 pins path-to-regexp to exactly 0.1.7, so a lockfile refresh alone can't fix it. I raised express to ^4.21.2 (same major), which depends on a patched 0.1.x path-to-regexp, and regenerated the lockfile. An overrides entry would also work, but upgrading express keeps the tree consistent with what express was tested with.",
      costUsd: 0.2361,
      note: "fixes a pinned transitive dependency by upgrading its parent within the major",
    },
  },
  {
    id: "ws-headers-dos-7x-cve-2024-37890",
    title: "ws 7.5.9: denial of service with many HTTP headers",
    difficulty: "medium",
    disposition: "positive",
    curationClass: "held-out",
    advisories: [GHSA.ws],
    package: "ws",
    dependencies: { ws: "^7.5.9" },
    lockedDirect: { ws: "7.5.9" },
    source: {
      path: "src/live-updates.js",
      content: `const WebSocket = require("ws");\n\n// Broadcasts build status to every connected dashboard.\nfunction startLiveUpdates(server) {\n  const wss = new WebSocket.Server({ server, path: "/live" });\n  return (status) => {\n    for (const client of wss.clients) {\n      if (client.readyState === WebSocket.OPEN) client.send(JSON.stringify(status));\n    }\n  };\n}\n\nmodule.exports = { startLiveUpdates };\n`,
    },
    expected: {
      minimal_fixed_version: "7.5.10",
      max_major: { ws: 7 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["ws"],
      accepted_fixes: "ws ^7.5.10 (the 7.x line is patched; ws 8 changes the API and is not needed)",
    },
    agent: {
      adapter: "codex",
      outcome: "completed",
      opening: "Reading advisory and manifest",
      edits: [bump("ws", "^7.5.9", "^7.5.10")],
      npm: [LOCK_ONLY, ["ls", "ws", "--package-lock-only"]],
      finalMessage: "Bumped ws to ^7.5.10, the patched release on the 7.x line, and refreshed the lockfile. Staying on 7.x avoids the ws 8 API changes.",
      costUsd: null,
      note: "fixes the case cleanly and stays on the major line",
    },
  },
  {
    id: "tough-cookie-via-request-cve-2023-26136",
    title: "tough-cookie 2.5.0 under the abandoned request 2.88.2: prototype pollution",
    difficulty: "hard",
    disposition: "positive",
    curationClass: "held-out",
    advisories: [GHSA.toughCookie],
    package: "tough-cookie",
    dependencies: { request: "^2.88.2" },
    lockedDirect: { request: "2.88.2" },
    source: {
      path: "src/fetch-report.js",
      content: `const request = require("request");\n\n// Downloads the nightly report with the session cookie jar the legacy portal requires.\nfunction fetchReport(url, callback) {\n  const jar = request.jar();\n  request({ url, jar, json: true, timeout: 10000 }, (err, res, body) => {\n    if (err) return callback(err);\n    if (res.statusCode !== 200) return callback(new Error("portal answered " + res.statusCode));\n    callback(null, body);\n  });\n}\n\nmodule.exports = { fetchReport };\n`,
    },
    expected: {
      minimal_fixed_version: "4.1.3",
      max_major: { "tough-cookie": 4, request: 2 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["tough-cookie"],
      accepted_fixes: "request has no fixed release (2.88.2 is the last and asks for tough-cookie ~2.5.0), so an npm overrides entry tough-cookie >= 4.1.3 (4.x) is the fix",
    },
    agent: {
      adapter: "claude-code",
      outcome: "completed",
      opening: "tough-cookie comes in through request. Let me check whether request has a release that fixes this.",
      edits: [{ path: "package.json", oldText: `  "dependencies": {\n    "request": "^2.88.2"\n  }\n`, newText: `  "dependencies": {\n    "request": "^2.88.2"\n  },\n  "overrides": {\n    "tough-cookie": "^4.1.3"\n  }\n` }],
      npm: [["view", "request", "version", "dependencies.tough-cookie"], LOCK_ONLY, ["ls", "tough-cookie", "--package-lock-only"]],
      finalMessage:
        "request is deprecated and 2.88.2 is its last release; it asks for tough-cookie ~2.5.0, which is affected. I added an npm `overrides` entry forcing tough-cookie ^4.1.3 and regenerated the lockfile. request only uses the CookieJar API that 4.x still provides. Longer term, replacing request is the real fix.",
      costUsd: 0.3127,
      note: "fixes a vulnerable transitive dependency with an overrides entry",
    },
  },
  {
    id: "node-fetch-major-cve-2022-0235",
    title: "node-fetch 1.7.3: credentials leaked on redirect; no patched 1.x exists",
    difficulty: "hard",
    disposition: "positive",
    curationClass: "held-out",
    advisories: [GHSA.nodeFetch],
    package: "node-fetch",
    dependencies: { "node-fetch": "^1.7.3" },
    lockedDirect: { "node-fetch": "1.7.3" },
    source: {
      path: "src/status-client.js",
      content: `const fetch = require("node-fetch");\n\n// Polls the upstream status API with the service token.\nasync function upstreamStatus(baseUrl, token) {\n  const res = await fetch(baseUrl + "/status", { headers: { Authorization: "Bearer " + token } });\n  if (!res.ok) throw new Error("status API answered " + res.status);\n  return res.json();\n}\n\nmodule.exports = { upstreamStatus };\n`,
    },
    expected: {
      minimal_fixed_version: "2.6.7",
      max_major: { "node-fetch": 2 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["node-fetch"],
      accepted_fixes: "node-fetch ^2.6.7: the 1.x line has no patched release, so a major bump to 2 is required; 3.x is ESM-only and would break this CommonJS code",
    },
    agent: {
      adapter: "gemini",
      outcome: "completed",
      opening: "No 1.x release is patched, so this needs a major upgrade. Checking which major keeps require() working.",
      edits: [bump("node-fetch", "^1.7.3", "^2.6.7")],
      npm: [["view", "node-fetch@2", "version"], LOCK_ONLY, ["ls", "node-fetch", "--package-lock-only"]],
      finalMessage:
        "There is no patched node-fetch 1.x, so I moved to ^2.6.7: the oldest patched line that still supports require() (3.x is ESM-only). The code in src/status-client.js uses only fetch(), res.ok, res.status and res.json(), which behave the same in 2.x.",
      costUsd: null,
      note: "makes the one major bump the advisory requires",
    },
  },
  {
    id: "follow-redirects-two-advisories",
    title: "follow-redirects 1.15.3: two advisories on one package line",
    difficulty: "medium",
    disposition: "positive",
    curationClass: "rag-corpus-derived",
    advisories: [GHSA.followRedirects2023, GHSA.followRedirects2024],
    package: "follow-redirects",
    dependencies: { "follow-redirects": "^1.15.3" },
    lockedDirect: { "follow-redirects": "1.15.3" },
    source: {
      path: "src/download.js",
      content: `const { https } = require("follow-redirects");\n\n// Downloads a release artifact through the corporate proxy, following CDN redirects.\nfunction download(url, headers) {\n  return new Promise((resolve, reject) => {\n    https\n      .get(url, { headers, maxRedirects: 5 }, (res) => {\n        const chunks = [];\n        res.on("data", (c) => chunks.push(c));\n        res.on("end", () => resolve(Buffer.concat(chunks)));\n      })\n      .on("error", reject);\n  });\n}\n\nmodule.exports = { download };\n`,
    },
    expected: {
      minimal_fixed_version: "1.15.6",
      max_major: { "follow-redirects": 1 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["follow-redirects"],
      accepted_fixes: "follow-redirects >= 1.15.6 fixes both advisories; 1.15.4 or 1.15.5 fix only CVE-2023-26159",
    },
    agent: {
      adapter: "codex",
      outcome: "completed",
      opening: "Reviewing advisory and pinned follow-redirects",
      edits: [bump("follow-redirects", "^1.15.3", "1.15.4")],
      npm: [LOCK_ONLY, ["ls", "follow-redirects", "--package-lock-only"]],
      finalMessage: "Pinned follow-redirects to 1.15.4, the patched version for CVE-2023-26159, and updated the lockfile.",
      costUsd: null,
      note: "fixes only the first of two advisories: still vulnerable",
    },
  },
  {
    id: "postcss-line-return-cve-2023-44270",
    title: "postcss 8.4.24: line return parsing error",
    difficulty: "easy",
    disposition: "positive",
    curationClass: "rag-corpus-derived",
    advisories: [GHSA.postcss],
    package: "postcss",
    dependencies: { dotenv: "^16.0.3", postcss: "^8.4.24" },
    lockedDirect: { dotenv: "16.0.3", postcss: "8.4.24" },
    source: {
      path: "src/build-css.js",
      content: `require("dotenv").config();\nconst postcss = require("postcss");\n\n// Strips comments from user-supplied theme CSS before it is stored.\nasync function sanitizeTheme(css) {\n  const root = postcss.parse(css);\n  root.walkComments((comment) => comment.remove());\n  return root.toString();\n}\n\nmodule.exports = { sanitizeTheme };\n`,
    },
    expected: {
      minimal_fixed_version: "8.4.31",
      max_major: { postcss: 8, dotenv: 16 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["postcss"],
      accepted_fixes: "postcss ^8.4.31; nothing else in the project needs to change",
    },
    agent: {
      adapter: "claude-code",
      outcome: "completed",
      opening: "I'll check the advisory, the manifest and the code that parses CSS.",
      edits: [
        bump("postcss", "^8.4.24", "^8.4.31"),
        bump("dotenv", "^16.0.3", "^16.4.5"),
        {
          path: "src/build-css.js",
          oldText: `async function sanitizeTheme(css) {\n  const root = postcss.parse(css);`,
          newText: `async function sanitizeTheme(css) {\n  if (typeof css !== "string") throw new TypeError("theme CSS must be a string");\n  const root = postcss.parse(css);`,
        },
      ],
      npm: [LOCK_ONLY, ["ls", "postcss", "dotenv", "--package-lock-only"]],
      finalMessage:
        "Upgraded postcss to ^8.4.31 (fixes CVE-2023-44270). While there I also bumped dotenv to the latest 16.x and added an input type check to sanitizeTheme so bad input fails early.",
      costUsd: 0.1652,
      note: "fixes the advisory but makes unrelated changes (collateral)",
    },
  },
  {
    id: "express-open-redirect-cve-2024-29041",
    title: "express 4.18.2: open redirect in res.location()",
    difficulty: "medium",
    disposition: "positive",
    curationClass: "held-out",
    advisories: [GHSA.express],
    package: "express",
    dependencies: { express: "^4.18.2" },
    lockedDirect: { express: "4.18.2" },
    source: {
      path: "src/redirects.js",
      content: `const express = require("express");\n\nconst router = express.Router();\n\n// Sends users back to where they came from after login.\nrouter.get("/after-login", (req, res) => {\n  res.redirect(req.query.next || "/");\n});\n\nmodule.exports = { router };\n`,
    },
    expected: {
      minimal_fixed_version: "4.19.2",
      max_major: { express: 4 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["express"],
      accepted_fixes: "express ^4.19.2 (any 4.x >= 4.19.2) in package.json and lockfile",
    },
    agent: {
      adapter: "claude-code",
      outcome: "refused",
      opening: "Let me look at the advisory first.",
      edits: [],
      npm: [],
      finalMessage:
        "I can't help with this request. The advisory describes an open-redirect exploitation technique, and I'm not able to assist with crafting or analysing redirect payloads.",
      costUsd: 0.0311,
      note: "a model refusal on a benign maintenance task",
    },
  },
  {
    id: "json5-proto-1x-cve-2022-46175",
    title: "json5 1.0.1: prototype pollution in parse, fixed on the 1.x line",
    difficulty: "medium",
    disposition: "positive",
    curationClass: "rag-corpus-derived",
    advisories: [GHSA.json5],
    package: "json5",
    dependencies: { json5: "^1.0.1" },
    lockedDirect: { json5: "1.0.1" },
    source: {
      path: "src/load-config.js",
      content: `const fs = require("node:fs");\nconst JSON5 = require("json5");\n\n// Reads the hand-edited deployment config (comments and trailing commas allowed).\nfunction loadConfig(file) {\n  return JSON5.parse(fs.readFileSync(file, "utf8"));\n}\n\nmodule.exports = { loadConfig };\n`,
    },
    expected: {
      minimal_fixed_version: "1.0.2",
      max_major: { json5: 1 },
      allowed_files: MANIFEST_AND_LOCK,
      allowed_dependency_changes: ["json5"],
      accepted_fixes: "json5 ^1.0.2 (patched on the 1.x line; 2.x is not needed)",
    },
    agent: {
      adapter: "claude-code",
      outcome: "auth_error",
      opening: "",
      edits: [],
      npm: [],
      finalMessage: "",
      costUsd: 0,
      note: "the CLI was not logged in: a cli_error trial, nothing was attempted",
    },
  },
  {
    id: "semver-already-patched-negative",
    title: "semver 7.6.3 is outside the CVE-2022-25883 range: nothing to change",
    difficulty: "easy",
    disposition: "negative",
    curationClass: "held-out",
    advisories: [GHSA.semver],
    package: "semver",
    dependencies: { semver: "^7.6.3" },
    lockedDirect: { semver: "7.6.3" },
    source: {
      path: "src/release-notes.js",
      content: `const semver = require("semver");\n\n// Orders release tags newest first, skipping anything that is not a valid version.\nfunction sortTags(tags) {\n  return tags.filter((t) => semver.valid(t)).sort(semver.rcompare);\n}\n\nmodule.exports = { sortTags };\n`,
    },
    expected: {
      minimal_fixed_version: null,
      max_major: { semver: 7 },
      allowed_files: [],
      allowed_dependency_changes: [],
      accepted_fixes: "no change: the locked semver 7.6.3 and the declared floor ^7.6.3 are both outside the affected range",
    },
    agent: {
      adapter: "codex",
      outcome: "completed",
      opening: "Checking whether the locked semver is affected",
      edits: [],
      npm: [["ls", "semver", "--package-lock-only"]],
      finalMessage: "No change needed: package.json asks for ^7.6.3 and the lockfile resolves semver 7.6.3; GHSA-c2qf-rxjj-qqgw affects only versions below 7.5.2 on the 7.x line.",
      costUsd: null,
      note: "correctly leaves an unaffected project alone",
    },
  },
];

export const CASES: readonly VulnCaseSpec[] = [...ORIGINAL_CASES, ...GROWN_CASES];
