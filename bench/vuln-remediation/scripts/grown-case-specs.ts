// The cases added to grow the bench past gold's floor (docs/trust-tiers.yaml), written compactly: each
// is a real GitHub advisory for an npm package (ranges and patched versions as the GitHub Advisory
// Database records them; the registry's bulk advisory endpoint is not reachable from the curation
// machine, so they are pinned here, not fetched), a project locked at the versions it had when the
// advisory landed, the reference fix, the needless major bump its near miss uses (or why there is
// none), the smoke check, and the scripted agent's edits and npm commands (the reference fix) its scripted model
// session is built from.
// case-specs.ts and control-specs.ts merge these with the original 15.
import type { Adapter, Advisory, ControlSpec, TextEdit, VulnCaseSpec } from "./spec-types.ts";

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
const MANIFEST_AND_LOCK = ["package.json", "package-lock.json"];

const advisory = (
  id: string,
  cve: string,
  pkg: string,
  range: string,
  patched: string[],
  severity: Advisory["severity"],
  summary: string,
): Advisory => ({
  id,
  cve,
  package: pkg,
  vulnerable_range: range,
  patched_versions: patched,
  severity,
  summary,
});

const ADV = {
  qs: advisory(
    "GHSA-hrpp-h998-j3pp",
    "CVE-2022-24999",
    "qs",
    "<6.2.4 || >=6.3.0 <6.3.3 || >=6.4.0 <6.4.1 || >=6.5.0 <6.5.3 || >=6.6.0 <6.6.1 || >=6.7.0 <6.7.3 || >=6.8.0 <6.8.3 || >=6.9.0 <6.9.7 || >=6.10.0 <6.10.3",
    ["6.2.4", "6.3.3", "6.4.1", "6.5.3", "6.6.1", "6.7.3", "6.8.3", "6.9.7", "6.10.3"],
    "high",
    "Prototype pollution through __proto__ keys in a parsed query string",
  ),
  momentPath: advisory(
    "GHSA-8hfj-j24r-96c4",
    "CVE-2022-24785",
    "moment",
    "<2.29.2",
    ["2.29.2"],
    "high",
    "Path traversal through a user-provided locale name in moment.locale()",
  ),
  momentRedos: advisory(
    "GHSA-wc69-rhjr-hc9g",
    "CVE-2022-31129",
    "moment",
    ">=2.18.0 <2.29.4",
    ["2.29.4"],
    "high",
    "Regular expression denial of service in RFC 2822 date parsing",
  ),
  axios: advisory(
    "GHSA-wf5p-g6vw-rhxx",
    "CVE-2023-45857",
    "axios",
    ">=0.8.1 <0.28.0 || >=1.0.0 <1.6.0",
    ["0.28.0", "1.6.0"],
    "moderate",
    "The XSRF-TOKEN cookie is sent to any host in the X-XSRF-TOKEN header",
  ),
  ansiRegex: advisory(
    "GHSA-93q8-gq69-wqmw",
    "CVE-2021-3807",
    "ansi-regex",
    ">=3.0.0 <3.0.1 || >=4.0.0 <4.1.1 || >=5.0.0 <5.0.1 || >=6.0.0 <6.0.1",
    ["3.0.1", "4.1.1", "5.0.1", "6.0.1"],
    "high",
    "Regular expression denial of service when matching ANSI escape codes",
  ),
  globParent: advisory(
    "GHSA-ww39-953v-wcq6",
    "CVE-2020-28469",
    "glob-parent",
    "<5.1.2",
    ["5.1.2"],
    "high",
    "Regular expression denial of service in the enclosure regex",
  ),
  nthCheck: advisory(
    "GHSA-rp65-9cf3-cjxr",
    "CVE-2021-3803",
    "nth-check",
    "<2.0.1",
    ["2.0.1"],
    "high",
    "Regular expression denial of service when parsing an nth-check formula",
  ),
  wordWrap: advisory(
    "GHSA-j8xg-fqg3-53r7",
    "CVE-2023-26115",
    "word-wrap",
    "<1.2.4",
    ["1.2.4"],
    "moderate",
    "Regular expression denial of service in the result regex",
  ),
  decodeUri: advisory(
    "GHSA-w573-4hg7-7wgq",
    "CVE-2022-38900",
    "decode-uri-component",
    "<0.2.1",
    ["0.2.1"],
    "high",
    "Denial of service on malformed percent-encoding",
  ),
  terser: advisory(
    "GHSA-4wf5-vphf-c2xc",
    "CVE-2022-25858",
    "terser",
    "<4.8.1 || >=5.0.0 <5.14.2",
    ["4.8.1", "5.14.2"],
    "high",
    "Regular expression denial of service through insecure regex usage in minify",
  ),
  uaParser: advisory(
    "GHSA-fhg7-m89q-25r3",
    "CVE-2022-25927",
    "ua-parser-js",
    ">=0.7.30 <0.7.33 || >=0.8.1 <1.0.33",
    ["0.7.33", "1.0.33"],
    "high",
    "Regular expression denial of service in trim() on a crafted user agent",
  ),
  undici: advisory(
    "GHSA-wqq4-5wpv-mx2g",
    "CVE-2023-45143",
    "undici",
    "<5.26.2",
    ["5.26.2"],
    "low",
    "The Cookie header is kept on a cross-origin redirect",
  ),
  cookie: advisory(
    "GHSA-pxg6-pf52-xh8x",
    "CVE-2024-47764",
    "cookie",
    "<0.7.0",
    ["0.7.0"],
    "low",
    "Out-of-bounds characters accepted in the cookie name, path and domain",
  ),
  tar: advisory(
    "GHSA-f5x3-32g6-xq36",
    "CVE-2024-28863",
    "tar",
    "<6.2.1",
    ["6.2.1"],
    "moderate",
    "Denial of service while parsing a tar file with deeply nested folders",
  ),
  ip: advisory(
    "GHSA-78xj-cgh5-2h22",
    "CVE-2023-42282",
    "ip",
    "<1.1.9 || >=2.0.0 <2.0.1",
    ["1.1.9", "2.0.1"],
    "low",
    "isPublic() identifies some private addresses (e.g. 0x7f.1) as public",
  ),
  xml2js: advisory(
    "GHSA-776f-qx25-q3cc",
    "CVE-2023-0842",
    "xml2js",
    "<0.5.0",
    ["0.5.0"],
    "moderate",
    "Prototype pollution through __proto__ element names in parsed XML",
  ),
  minimatch: advisory(
    "GHSA-f8q6-p94x-37v3",
    "CVE-2022-3517",
    "minimatch",
    "<3.0.5",
    ["3.0.5"],
    "high",
    "Regular expression denial of service in braceExpand()",
  ),
  shellQuote: advisory(
    "GHSA-g4rg-993r-mgx7",
    "CVE-2021-42740",
    "shell-quote",
    "<=1.7.2",
    ["1.7.3"],
    "critical",
    "quote() does not escape Windows drive-letter paths: command injection",
  ),
  async: advisory(
    "GHSA-fwr7-v2mv-hh25",
    "CVE-2021-43138",
    "async",
    ">=2.0.0 <2.6.4 || >=3.0.0 <3.2.2",
    ["2.6.4", "3.2.2"],
    "high",
    "Prototype pollution through mapValues()",
  ),
  markedReflink: advisory(
    "GHSA-5v2h-r2cx-5xgj",
    "CVE-2022-21681",
    "marked",
    "<4.0.10",
    ["4.0.10"],
    "high",
    "Regular expression denial of service in the inline.reflinkSearch rule",
  ),
  markedDef: advisory(
    "GHSA-rrrm-qjm4-v8hf",
    "CVE-2022-21680",
    "marked",
    "<4.0.10",
    ["4.0.10"],
    "high",
    "Regular expression denial of service in the block.def rule",
  ),
  jwtKeyRetrieval: advisory(
    "GHSA-hjrf-2m68-5959",
    "CVE-2022-23541",
    "jsonwebtoken",
    "<=8.5.1",
    ["9.0.0"],
    "moderate",
    "Insecure key retrieval lets a public key verify an HMAC-signed token",
  ),
  jwtDefaultAlgorithm: advisory(
    "GHSA-qwph-4952-7xr6",
    "CVE-2022-23540",
    "jsonwebtoken",
    "<=8.5.1",
    ["9.0.0"],
    "moderate",
    "Signature validation bypass through the insecure default algorithm in verify()",
  ),
  hostedGitInfo: advisory(
    "GHSA-43f8-2h32-f4cj",
    "CVE-2021-23362",
    "hosted-git-info",
    "<2.8.9 || >=3.0.0 <3.0.8",
    ["2.8.9", "3.0.8"],
    "moderate",
    "Regular expression denial of service in fromUrl()",
  ),
  nanoid: advisory(
    "GHSA-qrpm-p2h7-hrv2",
    "CVE-2021-23566",
    "nanoid",
    ">=3.0.0 <3.1.31",
    ["3.1.31"],
    "moderate",
    "Predictable IDs when valueOf() is called on a non-integer size",
  ),
} as const;

/** One grown case: the spec fields curate-cases.ts needs plus its controls. */
interface Grown {
  readonly id: string;
  readonly title: string;
  readonly difficulty: VulnCaseSpec["difficulty"];
  readonly curationClass: VulnCaseSpec["curationClass"];
  readonly negative?: true;
  readonly advisories: readonly Advisory[];
  readonly package: string;
  readonly dependencies: Readonly<Record<string, string>>;
  readonly lockedDirect: Readonly<Record<string, string>>;
  readonly lockedTransitive?: Readonly<Record<string, string>>;
  readonly source: { readonly path: string; readonly content: string };
  readonly minimal: string | null;
  readonly maxMajor: Readonly<Record<string, number>>;
  readonly accepted: string;
  readonly reference: ControlSpec["reference"];
  readonly needlessMajor: ControlSpec["needlessMajor"];
  readonly smoke: string | null;
  readonly adapter: Adapter;
  readonly finalMessage: string;
}

const cjs = (requires: string, body: string, exported: string) =>
  `${requires}\n\n${body}\n\nmodule.exports = { ${exported} };\n`;

const GROWN: readonly Grown[] = [
  {
    id: "qs-proto-6x-cve-2022-24999",
    title: "qs 6.10.1: prototype pollution through __proto__ keys",
    difficulty: "easy",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.qs],
    package: "qs",
    dependencies: { qs: "^6.10.1" },
    lockedDirect: { qs: "6.10.1" },
    source: {
      path: "src/parse-filters.js",
      content: cjs(
        `const qs = require("qs");`,
        `// Turns the listing page's query string into a filter object.\nfunction parseFilters(search) {\n  return qs.parse(search, { ignoreQueryPrefix: true, depth: 3 });\n}`,
        "parseFilters",
      ),
    },
    minimal: "6.10.3",
    maxMajor: { qs: 6 },
    accepted: "qs ^6.10.3 (any 6.x at or past the patched release of its minor line)",
    reference: { edits: [bump("qs", "^6.10.1", "^6.10.3")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "qs has no release past 6.x" },
    smoke: smoke(
      `  const { parseFilters } = load("./src/parse-filters.js");\n  assert.deepEqual(parseFilters("?tag[]=a&tag[]=b&page=2"), { tag: ["a", "b"], page: "2" });`,
    ),
    adapter: "claude-code",
    finalMessage:
      "Raised qs to ^6.10.3 and refreshed the lockfile; the locked qs is outside every affected range of GHSA-hrpp-h998-j3pp.",
  },
  {
    id: "moment-two-advisories",
    title: "moment 2.29.1: path traversal in locale() and ReDoS in RFC 2822 parsing",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.momentPath, ADV.momentRedos],
    package: "moment",
    dependencies: { moment: "^2.29.1" },
    lockedDirect: { moment: "2.29.1" },
    source: {
      path: "src/format-date.js",
      content: cjs(
        `const moment = require("moment");`,
        `// Formats an invoice date for the customer's locale.\nfunction formatInvoiceDate(iso, locale) {\n  return moment.utc(iso).locale(locale || "en").format("LL");\n}`,
        "formatInvoiceDate",
      ),
    },
    minimal: "2.29.4",
    maxMajor: { moment: 2 },
    accepted: "moment >= 2.29.4 fixes both advisories; 2.29.2 and 2.29.3 fix only the path traversal",
    reference: { edits: [bump("moment", "^2.29.1", "^2.29.4")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "moment has no release past 2.x" },
    smoke: smoke(
      `  const { formatInvoiceDate } = load("./src/format-date.js");\n  assert.equal(formatInvoiceDate("2024-03-05T00:00:00Z", "en"), "March 5, 2024");`,
    ),
    adapter: "gemini",
    finalMessage:
      "Both advisories are fixed from moment 2.29.4 on, so I raised moment to ^2.29.4 and regenerated the lockfile.",
  },
  {
    id: "axios-xsrf-1x-cve-2023-45857",
    title: "axios 1.4.0: XSRF token leaked to third-party hosts",
    difficulty: "easy",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.axios],
    package: "axios",
    dependencies: { axios: "^1.4.0" },
    lockedDirect: { axios: "1.4.0" },
    source: {
      path: "src/billing-client.js",
      content: cjs(
        `const axios = require("axios");`,
        `// The billing API client the dashboard uses.\nfunction billingClient(baseURL) {\n  return axios.create({ baseURL, timeout: 5000, withCredentials: true });\n}`,
        "billingClient",
      ),
    },
    minimal: "1.6.0",
    maxMajor: { axios: 1 },
    accepted: "axios ^1.6.0 in package.json and the lockfile",
    reference: { edits: [bump("axios", "^1.4.0", "^1.6.0")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "axios has no release past 1.x" },
    smoke: smoke(
      `  const { billingClient } = load("./src/billing-client.js");\n  const client = billingClient("http://127.0.0.1:9");\n  assert.equal(typeof client.get, "function");\n  assert.equal(client.defaults.baseURL, "http://127.0.0.1:9");`,
    ),
    adapter: "codex",
    finalMessage: "axios now requires ^1.6.0 and the lockfile resolves a patched 1.x release.",
  },
  {
    id: "axios-xsrf-0x-line-cve-2023-45857",
    title: "axios 0.21.4: the XSRF advisory fixed on the 0.x line",
    difficulty: "hard",
    curationClass: "held-out",
    advisories: [ADV.axios],
    package: "axios",
    dependencies: { axios: "^0.21.4" },
    lockedDirect: { axios: "0.21.4" },
    source: {
      path: "src/legacy-client.js",
      content: cjs(
        `const axios = require("axios");`,
        `// The legacy partner API client; its interceptors rely on the 0.x request config shape.\nfunction partnerClient(baseURL, token) {\n  const client = axios.create({ baseURL });\n  client.interceptors.request.use((config) => {\n    config.headers.Authorization = "Bearer " + token;\n    return config;\n  });\n  return client;\n}`,
        "partnerClient",
      ),
    },
    minimal: "0.28.0",
    maxMajor: { axios: 0 },
    accepted: "axios ^0.28.0: 0.28.0 is the patched release on the 0.x line; axios 1.x is an unneeded major upgrade",
    reference: { edits: [bump("axios", "^0.21.4", "^0.28.0")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("axios", "^0.21.4", "^1.6.0")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { partnerClient } = load("./src/legacy-client.js");\n  const client = partnerClient("http://127.0.0.1:9", "t");\n  assert.equal(typeof client.get, "function");`,
    ),
    adapter: "claude-code",
    finalMessage:
      "axios 0.28.0 carries the fix on the 0.x line, so I moved to ^0.28.0 rather than to 1.x and refreshed the lockfile.",
  },
  {
    id: "ansi-regex-transitive-cve-2021-3807",
    title: "ansi-regex 5.0.0 under strip-ansi: ReDoS",
    difficulty: "medium",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.ansiRegex],
    package: "ansi-regex",
    dependencies: { "strip-ansi": "^6.0.0" },
    lockedDirect: { "strip-ansi": "6.0.0" },
    lockedTransitive: { "ansi-regex": "5.0.0" },
    source: {
      path: "src/plain-log.js",
      content: cjs(
        `const stripAnsi = require("strip-ansi");`,
        `// Removes terminal colours from build logs before they are archived.\nfunction plainLog(text) {\n  return stripAnsi(text);\n}`,
        "plainLog",
      ),
    },
    minimal: "5.0.1",
    maxMajor: { "ansi-regex": 5, "strip-ansi": 6 },
    accepted: "a lockfile update that resolves ansi-regex to >= 5.0.1 (strip-ansi's ^5.0.0 allows it)",
    reference: { edits: [], npm: [UPDATE("ansi-regex")] },
    needlessMajor: { edits: [bump("strip-ansi", "^6.0.0", "^7.0.1")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { plainLog } = load("./src/plain-log.js");\n  assert.equal(plainLog("\\u001b[31mred\\u001b[39m"), "red");`,
    ),
    adapter: "gemini",
    finalMessage:
      "ansi-regex is transitive (strip-ansi asks for ^5.0.0), so `npm update ansi-regex --package-lock-only` moved it to a patched 5.0.x without touching package.json.",
  },
  {
    id: "glob-parent-redos-cve-2020-28469",
    title: "glob-parent 5.1.1: ReDoS in the enclosure regex",
    difficulty: "easy",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.globParent],
    package: "glob-parent",
    dependencies: { "glob-parent": "^5.1.1" },
    lockedDirect: { "glob-parent": "5.1.1" },
    source: {
      path: "src/watch-roots.js",
      content: cjs(
        `const globParent = require("glob-parent");`,
        `// The directories the file watcher must subscribe to for the given patterns.\nfunction watchRoots(patterns) {\n  return [...new Set(patterns.map((p) => globParent(p)))];\n}`,
        "watchRoots",
      ),
    },
    minimal: "5.1.2",
    maxMajor: { "glob-parent": 5 },
    accepted: "glob-parent ^5.1.2 (6.x is an unneeded major upgrade)",
    reference: { edits: [bump("glob-parent", "^5.1.1", "^5.1.2")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("glob-parent", "^5.1.1", "^6.0.2")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { watchRoots } = load("./src/watch-roots.js");\n  assert.deepEqual(watchRoots(["src/**/*.js", "src/*.ts", "docs/{a,b}.md"]), ["src", "docs"]);`,
    ),
    adapter: "claude-code",
    finalMessage: "Bumped glob-parent to ^5.1.2, the patched 5.x release, and refreshed the lockfile.",
  },
  {
    id: "nth-check-via-css-select-cve-2021-3803",
    title: "nth-check 2.0.0 under css-select: ReDoS",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.nthCheck],
    package: "nth-check",
    dependencies: { "css-select": "^4.1.3" },
    lockedDirect: { "css-select": "4.1.3" },
    lockedTransitive: { "nth-check": "2.0.0" },
    source: {
      path: "src/select.js",
      content: cjs(
        `const { selectAll } = require("css-select");`,
        `// Picks the nodes of a parsed template that a theme rule targets.\nfunction themed(rule, nodes) {\n  return selectAll(rule, nodes);\n}`,
        "themed",
      ),
    },
    minimal: "2.0.1",
    maxMajor: { "nth-check": 2, "css-select": 4 },
    accepted: "a lockfile update that resolves nth-check to >= 2.0.1 (css-select's ^2.0.0 allows it)",
    reference: { edits: [], npm: [UPDATE("nth-check")] },
    needlessMajor: { edits: [bump("css-select", "^4.1.3", "^5.1.0")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { themed } = load("./src/select.js");\n  assert.equal(typeof themed, "function");\n  const nth = load("nth-check");\n  assert.equal((nth.default || nth)("2n+1")(2), true);`,
    ),
    adapter: "codex",
    finalMessage:
      "nth-check is pulled in by css-select with ^2.0.0; I updated only the lockfile entry to a patched 2.x release.",
  },
  {
    id: "word-wrap-redos-cve-2023-26115",
    title: "word-wrap 1.2.3: ReDoS",
    difficulty: "easy",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.wordWrap],
    package: "word-wrap",
    dependencies: { "word-wrap": "^1.2.3" },
    lockedDirect: { "word-wrap": "1.2.3" },
    source: {
      path: "src/wrap-help.js",
      content: cjs(
        `const wrap = require("word-wrap");`,
        `// Wraps CLI help text to the terminal width.\nfunction wrapHelp(text, width) {\n  return wrap(text, { width, indent: "" });\n}`,
        "wrapHelp",
      ),
    },
    minimal: "1.2.4",
    maxMajor: { "word-wrap": 1 },
    accepted: "word-wrap ^1.2.4",
    reference: { edits: [bump("word-wrap", "^1.2.3", "^1.2.4")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "word-wrap has no release past 1.x" },
    smoke: smoke(
      `  const { wrapHelp } = load("./src/wrap-help.js");\n  assert.equal(wrapHelp("one two three", 7), "one two \\nthree");`,
    ),
    adapter: "gemini",
    finalMessage: "word-wrap now requires ^1.2.4 and the lockfile resolves the patched release.",
  },
  {
    id: "decode-uri-component-via-query-string-cve-2022-38900",
    title: "decode-uri-component 0.2.0 under query-string: denial of service",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.decodeUri],
    package: "decode-uri-component",
    dependencies: { "query-string": "^6.14.1" },
    lockedDirect: { "query-string": "6.14.1" },
    lockedTransitive: { "decode-uri-component": "0.2.0" },
    source: {
      path: "src/read-query.js",
      content: cjs(
        `const queryString = require("query-string");`,
        `// Reads the campaign parameters from a landing-page URL.\nfunction campaign(url) {\n  const { utm_source, utm_medium } = queryString.parseUrl(url).query;\n  return { source: utm_source || null, medium: utm_medium || null };\n}`,
        "campaign",
      ),
    },
    minimal: "0.2.1",
    maxMajor: { "decode-uri-component": 0, "query-string": 6 },
    accepted:
      "a lockfile update that resolves decode-uri-component to 0.2.x >= 0.2.1 (query-string's ^0.2.0 allows it)",
    reference: { edits: [], npm: [UPDATE("decode-uri-component")] },
    needlessMajor: {
      notApplicable:
        "query-string 7+ is ESM-only, so no newer parent is a plausible fix; the patched 0.2.x is within the parent's range",
    },
    smoke: smoke(
      `  const { campaign } = load("./src/read-query.js");\n  assert.deepEqual(campaign("https://x.example/?utm_source=news%20letter&utm_medium=%E0%A4%A"), { source: "news letter", medium: "%E0%A4%A" });`,
    ),
    adapter: "claude-code",
    finalMessage:
      "decode-uri-component comes in through query-string (^0.2.0), so a lockfile update to 0.2.2 fixes it without touching package.json.",
  },
  {
    id: "terser-redos-5x-cve-2022-25858",
    title: "terser 5.10.0: ReDoS in minify; the patched release has new dependencies",
    difficulty: "medium",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.terser],
    package: "terser",
    dependencies: { terser: "^5.10.0" },
    lockedDirect: { terser: "5.10.0" },
    source: {
      path: "src/minify-snippet.js",
      content: cjs(
        `const { minify } = require("terser");`,
        `// Minifies the analytics snippet embedded in every page.\nasync function minifySnippet(code) {\n  return (await minify(code, { compress: true, mangle: true })).code;\n}`,
        "minifySnippet",
      ),
    },
    minimal: "5.14.2",
    maxMajor: { terser: 5 },
    accepted: "terser ^5.14.2 with the lockfile npm writes for it (its dependencies changed since 5.10.0)",
    reference: { edits: [bump("terser", "^5.10.0", "^5.14.2")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "terser has no release past 5.x" },
    smoke: null,
    adapter: "codex",
    finalMessage:
      "terser now requires ^5.14.2; npm re-resolved its dependency tree (the source-map packages changed) in the lockfile.",
  },
  {
    id: "ua-parser-js-redos-cve-2022-25927",
    title: "ua-parser-js 1.0.2: ReDoS in trim()",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.uaParser],
    package: "ua-parser-js",
    dependencies: { "ua-parser-js": "^1.0.2" },
    lockedDirect: { "ua-parser-js": "1.0.2" },
    source: {
      path: "src/device.js",
      content: cjs(
        `const UAParser = require("ua-parser-js");`,
        `// Classifies a request's device for the analytics pipeline.\nfunction deviceOf(userAgent) {\n  const result = new UAParser(userAgent).getResult();\n  return { browser: result.browser.name || "unknown", os: result.os.name || "unknown" };\n}`,
        "deviceOf",
      ),
    },
    minimal: "1.0.33",
    maxMajor: { "ua-parser-js": 1 },
    accepted: "ua-parser-js ^1.0.33 (2.x changes the licence to AGPL and is not needed)",
    reference: { edits: [bump("ua-parser-js", "^1.0.2", "^1.0.33")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("ua-parser-js", "^1.0.2", "^2.0.0")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { deviceOf } = load("./src/device.js");\n  const ua = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";\n  assert.deepEqual(deviceOf(ua), { browser: "Chrome", os: "Linux" });`,
    ),
    adapter: "gemini",
    finalMessage:
      "Moved ua-parser-js to ^1.0.33, the patched 1.x release; 2.x changes the licence, so I stayed on 1.x.",
  },
  {
    id: "undici-cookie-redirect-cve-2023-45143",
    title: "undici 5.22.1: Cookie header kept across origins; the patched release swaps a dependency",
    difficulty: "hard",
    curationClass: "held-out",
    advisories: [ADV.undici],
    package: "undici",
    dependencies: { undici: "^5.22.1" },
    lockedDirect: { undici: "5.22.1" },
    source: {
      path: "src/fetch-feed.js",
      content: cjs(
        `const { request } = require("undici");`,
        `// Fetches a partner feed with the session cookie.\nasync function fetchFeed(url, cookie) {\n  const { body } = await request(url, { headers: { cookie }, maxRedirections: 3 });\n  return body.json();\n}`,
        "fetchFeed",
      ),
    },
    minimal: "5.26.2",
    maxMajor: { undici: 5 },
    accepted: "undici ^5.26.2 with the lockfile npm writes for it (busboy was replaced by @fastify/busboy)",
    reference: { edits: [bump("undici", "^5.22.1", "^5.26.2")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("undici", "^5.22.1", "^6.21.0")], npm: [LOCK_ONLY] },
    smoke: null,
    adapter: "claude-code",
    finalMessage:
      "undici 5.26.2 fixes the cross-origin Cookie leak; I raised the range to ^5.26.2 and let npm re-resolve its dependencies (busboy became @fastify/busboy).",
  },
  {
    id: "cookie-name-chars-cve-2024-47764",
    title: "cookie 0.5.0: out-of-bounds characters in name, path and domain",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.cookie],
    package: "cookie",
    dependencies: { cookie: "^0.5.0" },
    lockedDirect: { cookie: "0.5.0" },
    source: {
      path: "src/session-cookie.js",
      content: cjs(
        `const cookie = require("cookie");`,
        `// Serializes the session cookie and reads it back from a request header.\nfunction sessionCookie(id) {\n  return cookie.serialize("sid", id, { httpOnly: true, sameSite: "lax", path: "/" });\n}\nfunction readSession(header) {\n  return cookie.parse(header || "").sid || null;\n}`,
        "sessionCookie, readSession",
      ),
    },
    minimal: "0.7.0",
    maxMajor: { cookie: 0 },
    accepted: "cookie ^0.7.0 (the 0.x line is patched; 1.x is not needed)",
    reference: { edits: [bump("cookie", "^0.5.0", "^0.7.0")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("cookie", "^0.5.0", "^1.0.1")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { sessionCookie, readSession } = load("./src/session-cookie.js");\n  assert.equal(sessionCookie("abc"), "sid=abc; Path=/; HttpOnly; SameSite=Lax");\n  assert.equal(readSession("a=1; sid=abc"), "abc");`,
    ),
    adapter: "codex",
    finalMessage: "cookie 0.7.0 is the patched 0.x release; package.json now asks for ^0.7.0 and the lockfile follows.",
  },
  {
    id: "tar-nested-folders-cve-2024-28863",
    title: "tar 6.1.11: denial of service with deeply nested folders; the patched release needs minipass 5",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.tar],
    package: "tar",
    dependencies: { tar: "^6.1.11" },
    lockedDirect: { tar: "6.1.11" },
    source: {
      path: "src/unpack.js",
      content: cjs(
        `const tar = require("tar");`,
        `// Packs a build directory and unpacks an uploaded bundle.\nfunction pack(cwd, file, entries) {\n  return tar.c({ gzip: true, file, cwd, sync: true }, entries);\n}\nfunction unpack(file, cwd) {\n  return tar.x({ file, cwd, sync: true, strict: true });\n}`,
        "pack, unpack",
      ),
    },
    minimal: "6.2.1",
    maxMajor: { tar: 6 },
    accepted: "tar ^6.2.1 with the lockfile npm writes for it (tar 7 changes the API and is not needed)",
    reference: { edits: [bump("tar", "^6.1.11", "^6.2.1")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("tar", "^6.1.11", "^7.4.3")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const fs = require("node:fs");\n  const path = require("node:path");\n  const { pack, unpack } = load("./src/unpack.js");\n  fs.mkdirSync(path.join(scratch, "in"), { recursive: true });\n  fs.mkdirSync(path.join(scratch, "out"), { recursive: true });\n  fs.writeFileSync(path.join(scratch, "in", "a.txt"), "hello");\n  pack(path.join(scratch, "in"), path.join(scratch, "b.tgz"), ["a.txt"]);\n  unpack(path.join(scratch, "b.tgz"), path.join(scratch, "out"));\n  assert.equal(fs.readFileSync(path.join(scratch, "out", "a.txt"), "utf8"), "hello");`,
    ),
    adapter: "gemini",
    finalMessage:
      "Raised tar to ^6.2.1; npm re-resolved its minipass dependencies in the lockfile. Staying on 6.x keeps the tar.c/tar.x API.",
  },
  {
    id: "ip-ispublic-cve-2023-42282",
    title: "ip 1.1.8: isPublic() misclassifies private addresses",
    difficulty: "easy",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.ip],
    package: "ip",
    dependencies: { ip: "^1.1.8" },
    lockedDirect: { ip: "1.1.8" },
    source: {
      path: "src/ssrf-guard.js",
      content: cjs(
        `const ip = require("ip");`,
        `// Refuses webhook targets on private networks.\nfunction allowedTarget(address) {\n  return ip.isPublic(address);\n}`,
        "allowedTarget",
      ),
    },
    minimal: "1.1.9",
    maxMajor: { ip: 1 },
    accepted: "ip ^1.1.9 (2.x is not needed)",
    reference: { edits: [bump("ip", "^1.1.8", "^1.1.9")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("ip", "^1.1.8", "^2.0.1")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { allowedTarget } = load("./src/ssrf-guard.js");\n  assert.equal(allowedTarget("10.0.0.1"), false);\n  assert.equal(allowedTarget("8.8.8.8"), true);`,
    ),
    adapter: "claude-code",
    finalMessage:
      "ip 1.1.9 fixes isPublic() for the CVE-2023-42282 inputs; package.json and the lockfile now resolve it.",
  },
  {
    id: "xml2js-proto-cve-2023-0842",
    title: "xml2js 0.4.23: prototype pollution through __proto__ elements",
    difficulty: "medium",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.xml2js],
    package: "xml2js",
    dependencies: { xml2js: "^0.4.23" },
    lockedDirect: { xml2js: "0.4.23" },
    source: {
      path: "src/read-feed.js",
      content: cjs(
        `const xml2js = require("xml2js");`,
        `// Parses a supplier's XML price feed.\nfunction readFeed(xml) {\n  return xml2js.parseStringPromise(xml, { explicitArray: false });\n}`,
        "readFeed",
      ),
    },
    minimal: "0.5.0",
    maxMajor: { xml2js: 0 },
    accepted: "xml2js ^0.5.0 (or any later 0.x): the caret on 0.4 never admits 0.5, so the range must change",
    reference: { edits: [bump("xml2js", "^0.4.23", "^0.5.0")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "xml2js has no release past 0.x" },
    smoke: smoke(
      `  const { readFeed } = load("./src/read-feed.js");\n  assert.equal(JSON.stringify(await readFeed("<feed><item>12</item></feed>")), '{"feed":{"item":"12"}}');`,
    ),
    adapter: "gemini",
    finalMessage: "^0.4.23 can never resolve to 0.5.0, so I changed the range to ^0.5.0 and refreshed the lockfile.",
  },
  {
    id: "minimatch-redos-3x-cve-2022-3517",
    title: "minimatch 3.0.4: ReDoS in braceExpand",
    difficulty: "easy",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.minimatch],
    package: "minimatch",
    dependencies: { minimatch: "^3.0.4" },
    lockedDirect: { minimatch: "3.0.4" },
    source: {
      path: "src/ignore.js",
      content: cjs(
        `const minimatch = require("minimatch");`,
        `// True when a path matches one of the project's ignore patterns.\nfunction ignored(path, patterns) {\n  return patterns.some((p) => minimatch(path, p, { dot: true }));\n}`,
        "ignored",
      ),
    },
    minimal: "3.0.5",
    maxMajor: { minimatch: 3 },
    accepted: "minimatch ^3.0.5 (3.1.x included); a later major changes the export shape",
    reference: { edits: [bump("minimatch", "^3.0.4", "^3.0.5")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("minimatch", "^3.0.4", "^5.1.0")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { ignored } = load("./src/ignore.js");\n  assert.equal(ignored("dist/app.js", ["dist/**"]), true);\n  assert.equal(ignored("src/app.js", ["dist/**"]), false);`,
    ),
    adapter: "codex",
    finalMessage: "minimatch now requires ^3.0.5 and the lockfile resolves a patched 3.x release.",
  },
  {
    id: "shell-quote-injection-cve-2021-42740",
    title: "shell-quote 1.7.2: command injection through quote()",
    difficulty: "easy",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.shellQuote],
    package: "shell-quote",
    dependencies: { "shell-quote": "^1.7.2" },
    lockedDirect: { "shell-quote": "1.7.2" },
    source: {
      path: "src/command-line.js",
      content: cjs(
        `const { quote } = require("shell-quote");`,
        `// Builds the command line shown in the job log (and run by the legacy runner).\nfunction commandLine(argv) {\n  return quote(argv);\n}`,
        "commandLine",
      ),
    },
    minimal: "1.7.3",
    maxMajor: { "shell-quote": 1 },
    accepted: "shell-quote ^1.7.3",
    reference: { edits: [bump("shell-quote", "^1.7.2", "^1.7.3")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "shell-quote has no release past 1.x" },
    smoke: smoke(
      `  const { commandLine } = load("./src/command-line.js");\n  assert.equal(commandLine(["echo", "a b"]), "echo 'a b'");`,
    ),
    adapter: "claude-code",
    finalMessage: "shell-quote 1.7.3 escapes the drive-letter case; package.json and the lockfile now require it.",
  },
  {
    id: "async-proto-2x-cve-2021-43138",
    title: "async 2.6.3: prototype pollution in mapValues, fixed on the 2.x line",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.async],
    package: "async",
    dependencies: { async: "^2.6.3" },
    lockedDirect: { async: "2.6.3" },
    source: {
      path: "src/batch.js",
      content: cjs(
        `const async = require("async");`,
        `// Resizes uploaded images a few at a time.\nfunction resizeAll(items, resize, callback) {\n  async.mapLimit(items, 2, resize, callback);\n}`,
        "resizeAll",
      ),
    },
    minimal: "2.6.4",
    maxMajor: { async: 2 },
    accepted: "async ^2.6.4 (3.x changes the API and is not needed)",
    reference: { edits: [bump("async", "^2.6.3", "^2.6.4")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("async", "^2.6.3", "^3.2.2")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { resizeAll } = load("./src/batch.js");\n  const out = await new Promise((resolve, reject) => resizeAll([1, 2, 3], (n, cb) => cb(null, n * 2), (err, r) => (err ? reject(err) : resolve(r))));\n  assert.deepEqual(out, [2, 4, 6]);`,
    ),
    adapter: "codex",
    finalMessage: "async 2.6.4 is the patched 2.x release; I raised the range to ^2.6.4 and refreshed the lockfile.",
  },
  {
    id: "marked-two-redos-advisories",
    title: "marked 4.0.8: two ReDoS advisories fixed by one release",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.markedReflink, ADV.markedDef],
    package: "marked",
    dependencies: { marked: "^4.0.8" },
    lockedDirect: { marked: "4.0.8" },
    source: {
      path: "src/render-notes.js",
      content: cjs(
        `const { marked } = require("marked");`,
        `// Renders release notes written in Markdown.\nfunction renderNotes(markdown) {\n  return marked.parse(markdown);\n}`,
        "renderNotes",
      ),
    },
    minimal: "4.0.10",
    maxMajor: { marked: 4 },
    accepted: "marked ^4.0.10 fixes both advisories; a later major is not needed",
    reference: { edits: [bump("marked", "^4.0.8", "^4.0.10")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("marked", "^4.0.8", "^5.1.2")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { renderNotes } = load("./src/render-notes.js");\n  assert.equal(renderNotes("# v2").trim(), '<h1 id="v2">v2</h1>');`,
    ),
    adapter: "gemini",
    finalMessage: "Both advisories are fixed in marked 4.0.10; package.json asks for ^4.0.10 and the lockfile follows.",
  },
  {
    id: "jsonwebtoken-major-two-advisories",
    title: "jsonwebtoken 8.5.1: two advisories with no patched 8.x; the fix is the 9.x major",
    difficulty: "hard",
    curationClass: "held-out",
    advisories: [ADV.jwtKeyRetrieval, ADV.jwtDefaultAlgorithm],
    package: "jsonwebtoken",
    dependencies: { jsonwebtoken: "^8.5.1" },
    lockedDirect: { jsonwebtoken: "8.5.1" },
    source: {
      path: "src/tokens.js",
      content: cjs(
        `const jwt = require("jsonwebtoken");`,
        `// Issues and checks the short-lived API tokens.\nfunction issue(subject, secret) {\n  return jwt.sign({ sub: subject }, secret, { algorithm: "HS256", expiresIn: "5m" });\n}\nfunction check(token, secret) {\n  return jwt.verify(token, secret, { algorithms: ["HS256"] }).sub;\n}`,
        "issue, check",
      ),
    },
    minimal: "9.0.0",
    maxMajor: { jsonwebtoken: 9 },
    accepted:
      "jsonwebtoken ^9.0.0: no 8.x release is patched, so the major bump is required; npm re-resolves its dependencies (semver 7)",
    reference: { edits: [bump("jsonwebtoken", "^8.5.1", "^9.0.0")], npm: [LOCK_ONLY] },
    needlessMajor: { notApplicable: "9.x is the only patched line and there is no release past it" },
    smoke: smoke(
      `  const { issue, check } = load("./src/tokens.js");\n  assert.equal(check(issue("svc-7", "s3cret-s3cret-s3cret-s3cret-s3cret"), "s3cret-s3cret-s3cret-s3cret-s3cret"), "svc-7");`,
    ),
    adapter: "claude-code",
    finalMessage:
      "No 8.x release fixes GHSA-hjrf-2m68-5959 or GHSA-qwph-4952-7xr6, so I moved to ^9.0.0. The code already passes an explicit HS256 algorithm list to verify(), which 9.x requires.",
  },
  {
    id: "qs-via-request-lockfile-only",
    title: "qs 6.5.2 under request 2.88.2: fixed within request's ~6.5.2 range",
    difficulty: "medium",
    curationClass: "held-out",
    advisories: [ADV.qs],
    package: "qs",
    dependencies: { request: "^2.88.2" },
    lockedDirect: { request: "2.88.2" },
    lockedTransitive: { qs: "6.5.2" },
    source: {
      path: "src/post-form.js",
      content: cjs(
        `const request = require("request");`,
        `// Posts the nightly totals to the legacy accounting form.\nfunction postTotals(url, totals, callback) {\n  request.post({ url, form: totals, timeout: 10000 }, callback);\n}`,
        "postTotals",
      ),
    },
    minimal: "6.5.3",
    maxMajor: { qs: 6, request: 2 },
    accepted: "a lockfile update to qs 6.5.3+ within request's ~6.5.2 (no override needed)",
    reference: { edits: [], npm: [UPDATE("qs")] },
    needlessMajor: { notApplicable: "request has no release past 2.x and qs none past 6.x" },
    smoke: null,
    adapter: "codex",
    finalMessage:
      "request asks for qs ~6.5.2, and 6.5.3 carries the fix, so `npm update qs --package-lock-only` is enough; no override.",
  },
  {
    id: "minimist-via-optimist-override",
    title: "minimist 0.0.10 pinned by the abandoned optimist 0.6.1: an override on the 0.x line",
    difficulty: "hard",
    curationClass: "held-out",
    advisories: [
      advisory(
        "GHSA-xvch-5gv4-984h",
        "CVE-2021-44906",
        "minimist",
        "<0.2.4 || >=1.0.0 <1.2.6",
        ["0.2.4", "1.2.6"],
        "critical",
        "Prototype pollution through crafted argument keys",
      ),
    ],
    package: "minimist",
    dependencies: { optimist: "^0.6.1" },
    lockedDirect: { optimist: "0.6.1" },
    source: {
      path: "src/cli-args.js",
      content: cjs(
        `const optimist = require("optimist");`,
        `// Reads the worker's command line.\nfunction args(argv) {\n  return optimist(argv).default("port", 8080).argv;\n}`,
        "args",
      ),
    },
    minimal: "0.2.4",
    maxMajor: { minimist: 0, optimist: 0 },
    accepted:
      "optimist 0.6.1 is its last release and asks for minimist ~0.0.1, so an npm overrides entry minimist ^0.2.4 (the patched 0.x release) is the fix",
    reference: { edits: [override("optimist", "^0.6.1", "minimist", "^0.2.4")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [override("optimist", "^0.6.1", "minimist", "^1.2.6")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { args } = load("./src/cli-args.js");\n  assert.equal(args(["--port", "9090"]).port, 9090);\n  assert.equal(args([]).port, 8080);`,
    ),
    adapter: "claude-code",
    finalMessage:
      "optimist is abandoned and pins minimist ~0.0.1. I added an npm overrides entry minimist ^0.2.4, the patched 0.x release, so optimist keeps the API it was written against.",
  },
  {
    id: "hosted-git-info-transitive-cve-2021-23362",
    title: "hosted-git-info 2.8.8 under normalize-package-data: ReDoS",
    difficulty: "medium",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.hostedGitInfo],
    package: "hosted-git-info",
    dependencies: { "normalize-package-data": "^2.5.0" },
    lockedDirect: { "normalize-package-data": "2.5.0" },
    lockedTransitive: { "hosted-git-info": "2.8.8" },
    source: {
      path: "src/normalize.js",
      content: cjs(
        `const normalize = require("normalize-package-data");`,
        `// Normalizes a plugin's package.json before it is listed in the catalogue.\nfunction normalized(manifest) {\n  const copy = JSON.parse(JSON.stringify(manifest));\n  normalize(copy);\n  return copy;\n}`,
        "normalized",
      ),
    },
    minimal: "2.8.9",
    maxMajor: { "hosted-git-info": 2, "normalize-package-data": 2 },
    accepted: "a lockfile update that resolves hosted-git-info to >= 2.8.9 (normalize-package-data's ^2.1.4 allows it)",
    reference: { edits: [], npm: [UPDATE("hosted-git-info")] },
    needlessMajor: { edits: [bump("normalize-package-data", "^2.5.0", "^3.0.3")], npm: [LOCK_ONLY] },
    smoke: smoke(
      `  const { normalized } = load("./src/normalize.js");\n  const out = normalized({ name: "plugin-x", version: "1.0.0", repository: "github:acme/plugin-x" });\n  assert.equal(out.repository.url, "git+https://github.com/acme/plugin-x.git");`,
    ),
    adapter: "gemini",
    finalMessage:
      "hosted-git-info is transitive through normalize-package-data (^2.1.4); a lockfile-only update to 2.8.9 fixes it.",
  },
  {
    id: "nanoid-valueof-cve-2021-23566",
    title: "nanoid 3.1.25: predictable IDs through valueOf()",
    difficulty: "easy",
    curationClass: "rag-corpus-derived",
    advisories: [ADV.nanoid],
    package: "nanoid",
    dependencies: { nanoid: "^3.1.25" },
    lockedDirect: { nanoid: "3.1.25" },
    source: {
      path: "src/ids.js",
      content: cjs(
        `const { nanoid } = require("nanoid");`,
        `// Public identifiers for shared links.\nfunction linkId() {\n  return nanoid();\n}`,
        "linkId",
      ),
    },
    minimal: "3.1.31",
    maxMajor: { nanoid: 3 },
    accepted: "nanoid ^3.1.31 (4.x is ESM-only and would break this CommonJS code)",
    reference: { edits: [bump("nanoid", "^3.1.25", "^3.1.31")], npm: [LOCK_ONLY] },
    needlessMajor: { edits: [bump("nanoid", "^3.1.25", "^4.0.0")], npm: [LOCK_ONLY] },
    smoke: smoke(`  const { linkId } = load("./src/ids.js");\n  assert.match(linkId(), /^[A-Za-z0-9_-]{21}$/);`),
    adapter: "codex",
    finalMessage:
      "nanoid now requires ^3.1.31 and the lockfile resolves a patched 3.x release; 4.x is ESM-only, so I stayed on 3.x.",
  },
  {
    id: "lodash-already-patched-negative",
    title: "lodash 4.17.21 is outside the CVE-2021-23337 range: nothing to change",
    difficulty: "easy",
    curationClass: "held-out",
    negative: true,
    advisories: [
      advisory(
        "GHSA-35jh-r3h4-6jhm",
        "CVE-2021-23337",
        "lodash",
        "<4.17.21",
        ["4.17.21"],
        "high",
        "Command injection via the `variable` option of _.template",
      ),
    ],
    package: "lodash",
    dependencies: { lodash: "^4.17.21" },
    lockedDirect: { lodash: "4.17.21" },
    source: {
      path: "src/group.js",
      content: cjs(
        `const _ = require("lodash");`,
        `// Groups orders by customer for the monthly statement.\nfunction byCustomer(orders) {\n  return _.groupBy(orders, "customerId");\n}`,
        "byCustomer",
      ),
    },
    minimal: null,
    maxMajor: { lodash: 4 },
    accepted: "no change: lodash 4.17.21 is locked and ^4.17.21 is declared, both outside the affected range",
    reference: { edits: [], npm: [] },
    needlessMajor: { notApplicable: "a negative case: the right change is none" },
    smoke: smoke(
      `  const { byCustomer } = load("./src/group.js");\n  assert.deepEqual(Object.keys(byCustomer([{ customerId: "a" }, { customerId: "b" }, { customerId: "a" }])), ["a", "b"]);`,
    ),
    adapter: "gemini",
    finalMessage:
      "No change needed: lodash 4.17.21 is locked and declared, and GHSA-35jh-r3h4-6jhm affects only versions below 4.17.21.",
  },
  {
    id: "path-to-regexp-express-patched-negative",
    title: "express 4.21.2 already pins a patched path-to-regexp: nothing to change",
    difficulty: "medium",
    curationClass: "held-out",
    negative: true,
    advisories: [
      advisory(
        "GHSA-9wv6-86v2-598j",
        "CVE-2024-45296",
        "path-to-regexp",
        "<0.1.10 || >=0.2.0 <1.9.0 || >=2.0.0 <3.3.0 || >=4.0.0 <6.3.0 || >=7.0.0 <8.0.0",
        ["0.1.10", "1.9.0", "3.3.0", "6.3.0", "8.0.0"],
        "high",
        "Backtracking regular expressions for routes with two parameters in one segment",
      ),
    ],
    package: "path-to-regexp",
    dependencies: { express: "^4.21.2" },
    lockedDirect: { express: "4.21.2" },
    source: {
      path: "src/server.js",
      content: cjs(
        `const express = require("express");`,
        `const app = express();\n\n// Two parameters in one segment: the route shape CVE-2024-45296 is about.\napp.get("/files/:name-:revision", (req, res) => res.json(req.params));`,
        "app",
      ),
    },
    minimal: null,
    maxMajor: { express: 4, "path-to-regexp": 0 },
    accepted: "no change: express 4.21.2 pins path-to-regexp 0.1.12, outside the affected range",
    reference: { edits: [], npm: [] },
    needlessMajor: { notApplicable: "a negative case: the right change is none" },
    smoke: null,
    adapter: "claude-code",
    finalMessage:
      "No change needed: express 4.21.2 locks path-to-regexp 0.1.12, which is outside every affected range of GHSA-9wv6-86v2-598j.",
  },
];

const COSTS = [0.1042, 0.0871, 0.1395, 0.1163, 0.0958];

function toSpec(grown: Grown, index: number): VulnCaseSpec {
  const { reference } = grown;
  const npmSteps = [...reference.npm, ["ls", grown.package, "--package-lock-only"]];
  return {
    id: grown.id,
    title: grown.title,
    difficulty: grown.difficulty,
    disposition: grown.negative === true ? "negative" : "positive",
    curationClass: grown.curationClass,
    advisories: grown.advisories,
    package: grown.package,
    dependencies: grown.dependencies,
    lockedDirect: grown.lockedDirect,
    ...(grown.lockedTransitive === undefined ? {} : { lockedTransitive: grown.lockedTransitive }),
    source: grown.source,
    expected: {
      minimal_fixed_version: grown.minimal,
      max_major: grown.maxMajor,
      allowed_files: grown.negative === true ? [] : MANIFEST_AND_LOCK,
      allowed_dependency_changes: grown.negative === true ? [] : Object.keys(grown.maxMajor),
      accepted_fixes: grown.accepted,
    },
    agent: {
      adapter: grown.adapter,
      outcome: "completed",
      opening: `Reading the advisory and how ${grown.package} is declared and locked.`,
      edits: reference.edits,
      npm: grown.negative === true ? [["ls", grown.package, "--package-lock-only"]] : npmSteps,
      finalMessage: grown.finalMessage,
      costUsd: grown.adapter === "claude-code" ? COSTS[index % COSTS.length]! : null,
      note: grown.negative === true ? "correctly leaves an unaffected project alone" : "performs the reference fix",
    },
  };
}

export const GROWN_CASES: readonly VulnCaseSpec[] = GROWN.map(toSpec);

export const GROWN_CONTROLS: Readonly<Record<string, ControlSpec>> = Object.fromEntries(
  GROWN.map((grown) => [
    grown.id,
    { reference: grown.reference, needlessMajor: grown.needlessMajor, smoke: grown.smoke },
  ]),
);
