// Layering and dependency rules for evalgate (docs/architecture.md has the picture).
// scripts/dependency-rules.test.ts plants one violation of each kind in a temporary copy of the repo and
// asserts this check fails naming the rule: dependency-cruiser passes silently when it cannot parse
// TypeScript, so that test is what keeps these rules real.

const LLM_SDKS = [
  "openai",
  "@anthropic-ai/sdk",
  "@anthropic-ai/claude-agent-sdk",
  "@openai/codex-sdk",
  "@google/genai",
  "@google/generative-ai",
  "@google/gemini-cli-core",
  "ai",
  "@ai-sdk/[^/]+",
  "langchain",
  "@langchain/[^/]+",
  "llamaindex",
  "@huggingface/[^/]+",
  "cohere-ai",
  "@mistralai/[^/]+",
  "ollama",
];
const escape = (name) => name.replace(/\//g, "\\/");
const LLM_SDK_PATH = `(^|node_modules/)(${LLM_SDKS.map(escape).join("|")})(/|$)`;

// Which of our packages each package may import (besides itself). Lower layers know nothing of higher ones.
const ALLOWED = {
  errors: [],
  "model-stub": ["errors", "hashing"],
  hashing: [],
  // Leaves: durable writes and path containment; the state directory's layout over them.
  "durable-fs": [],
  "state-layout": ["errors", "hashing", "durable-fs"],
  sandbox: ["errors"],
  models: [],
  "rubric-protocol": ["models"],
  registry: ["models", "errors", "hashing", "durable-fs"],
  cache: ["models", "errors", "hashing", "durable-fs", "state-layout"],
  "audit-chain": ["models", "errors", "hashing", "durable-fs", "state-layout"],
  "tool-normalize": ["models", "errors", "hashing"],
  statistics: ["hashing"],
  runner: [
    "models",
    "errors",
    "hashing",
    "durable-fs",
    "state-layout",
    "registry",
    "cache",
    "audit-chain",
    "rubric-protocol",
    "sandbox",
    "statistics",
  ],
  promotion: ["models", "errors", "hashing", "durable-fs", "state-layout", "audit-chain", "statistics"],
  compare: ["models", "errors", "state-layout", "audit-chain", "statistics"],
  "model-bridge": [],
  "cli-subscription-adapters": [
    "models",
    "errors",
    "hashing",
    "durable-fs",
    "state-layout",
    "tool-normalize",
    "sandbox",
    "model-bridge",
    "model-stub",
  ],
  // Agent CLIs as SUTs, registered with the runner by name: above the runner and the adapters, below the CLI.
  "agent-sut": [
    "models",
    "errors",
    "hashing",
    "durable-fs",
    "state-layout",
    "tool-normalize",
    "model-bridge",
    "cli-subscription-adapters",
    "runner",
    // Its tests: the sandbox probe and the scripted model endpoint.
    "sandbox",
    "model-stub",
  ],
  reports: ["models", "errors", "hashing"],
  "report-data": [
    "models",
    "errors",
    "hashing",
    "state-layout",
    "durable-fs",
    "audit-chain",
    "cache",
    "registry",
    "runner",
    "promotion",
    "compare",
    "reports",
  ],
  // Private fixtures for tests (a devDependency only; no-dev-dependency-in-src keeps it out of shipped code).
  "test-utils": ["models"],
};

const layerRules = Object.entries(ALLOWED).map(([name, allowed]) => ({
  name: `layer-${name}`,
  comment: `@eval/${name} may import only ${allowed.length ? allowed.map((a) => `@eval/${a}`).join(", ") : "no other @eval package"}`,
  severity: "error",
  from: { path: `^packages/${name}/` },
  // Any package's tests may use the private fixtures in @eval/test-utils (test-utils-only-in-tests).
  to: { path: "^(packages|apps)/", pathNot: `^packages/(${[name, ...allowed, "test-utils"].join("|")})/` },
}));

module.exports = {
  forbidden: [
    {
      name: "no-llm-sdk",
      comment: "evalgate never imports an LLM SDK: adapters drive agent CLIs as processes (design §2)",
      severity: "error",
      from: { path: "^(packages|apps|bench)/" },
      to: { path: LLM_SDK_PATH },
    },
    ...layerRules,
    {
      name: "bench-uses-contract-only",
      comment: "task classes depend only on the bench contract: @eval/models, @eval/registry, @eval/rubric-protocol",
      severity: "error",
      // Curation scripts (bench/<slug>/scripts/) may use harness packages (the prompt's canary line, the
      // scripted-session writer); rubric, registration and tests may not.
      from: { path: "^bench/", pathNot: "^bench/[^/]+/scripts/" },
      to: { path: "^(packages|apps)/", pathNot: "^packages/(models|errors|registry|rubric-protocol)/" },
    },
    {
      name: "test-utils-only-in-tests",
      comment: "@eval/test-utils holds test fixtures: only tests (*.test.ts, *.test-helpers.ts, tests/) may import it",
      severity: "error",
      // Curation scripts (bench/<slug>/scripts/) use its scripted-session writer too.
      from: {
        path: "^(packages|apps|bench)/",
        pathNot: "\\.test(-helpers)?\\.ts$|/tests/|^packages/test-utils/|^bench/[^/]+/scripts/",
      },
      to: { path: "^packages/test-utils/" },
    },
    {
      name: "no-bench-imports-bench",
      comment: "a task class never imports another: what two benches share lives in a package (e.g. @eval/test-utils)",
      severity: "error",
      from: { path: "^bench/([^/]+)/" },
      to: { path: "^bench/", pathNot: "^bench/$1/" },
    },
    {
      name: "no-import-of-apps",
      comment: "apps/cli wires everything; nothing imports it",
      severity: "error",
      from: { path: "^(packages|bench)/" },
      to: { path: "^apps/" },
    },
    {
      name: "no-cross-package-relative-import",
      comment: "import another package by its name (@eval/x), never by a relative path into its files",
      severity: "error",
      from: { path: "^(packages|apps|bench)/([^/]+)/" },
      to: { dependencyTypes: ["local"], path: "^(packages|apps|bench)/", pathNot: "^$1/$2/" },
    },
    {
      name: "no-circular",
      comment: "no dependency cycles, inside a package or between packages",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "no-undeclared-dependency",
      comment: "every package a source file imports is declared in that package's package.json",
      severity: "error",
      from: { path: "^(packages|apps|bench)/", pathNot: "\\.test(-helpers)?\\.ts$|/tests/|/scripts/" },
      to: { dependencyTypes: ["npm-no-pkg", "npm-unknown"] },
    },
    {
      name: "no-dev-dependency-in-src",
      comment: "shipped code may not rely on a devDependency",
      severity: "error",
      from: { path: "^(packages|apps)/[^/]+/src/", pathNot: "\\.test(-helpers)?\\.ts$" },
      to: { dependencyTypes: ["npm-dev"] },
    },
    {
      name: "not-to-unresolvable",
      comment: "every import resolves",
      severity: "error",
      from: { path: "^(packages|apps|bench)/" },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // bench/<slug>/cases/ holds fixture projects (the code an agent works on), not bench code.
    exclude: { path: "^(packages|apps|bench)/[^/]+/(dist|coverage)/|/__fixtures__/|^bench/[^/]+/cases/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.check.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["@eval/source", "import", "types", "default"],
      extensions: [".ts", ".js", ".json"],
      mainFields: ["module", "main", "types"],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
