// Builds small, real task-class directories in temp dirs for runner tests.
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchCase } from "@eval/models";

const REPO = join(import.meta.dirname, "..", "..", "..");

/** A bench dir with `rubric.ts` and a node_modules that links @eval/rubric-protocol and @eval/models, as pnpm would. */
export async function makeRubricBench(rubricSource: string, root?: string): Promise<string> {
  const base = root ?? (await mkdtemp(join(tmpdir(), "evalgate-runner-bench-")));
  const benchPath = join(base, "adversarial");
  await mkdir(join(benchPath, "node_modules", "@eval"), { recursive: true });
  await symlink(join(REPO, "packages", "rubric-protocol"), join(benchPath, "node_modules", "@eval", "rubric-protocol"));
  await symlink(join(REPO, "packages", "models"), join(benchPath, "node_modules", "@eval", "models"));
  await writeFile(
    join(benchPath, "package.json"),
    JSON.stringify({ name: "adversarial-bench", private: true, type: "module" }),
  );
  await writeFile(join(benchPath, "rubric.ts"), rubricSource);
  return benchPath;
}

/** A loaded-looking BenchCase whose directories exist. */
export async function makeCase(
  benchPath: string,
  caseId: string,
  overrides: Partial<Record<string, unknown>> = {},
): Promise<BenchCase> {
  const casePath = join(benchPath, "cases", caseId);
  await mkdir(join(casePath, "input"), { recursive: true });
  await mkdir(join(casePath, "expected"), { recursive: true });
  await writeFile(join(casePath, "input", "data.txt"), `input of ${caseId}\n`);
  return {
    case_id: caseId,
    task_class: "adversarial",
    disposition: "positive",
    difficulty: "easy",
    source: "curated",
    curation_class: "held-out",
    commit_sha: null,
    added_at: "2026-01-01T00:00:00Z",
    last_validated_at: "2026-01-01T00:00:00Z",
    cassette_canary_pin: "0123456789abcdef0123456789abcdef",
    case_path: casePath,
    input_path: join(casePath, "input"),
    expected_path: join(casePath, "expected"),
    cassette_path: null,
    case_digest: `blake3:${"ab".repeat(32)}`,
    ...overrides,
  } as BenchCase;
}

/**
 * One rubric whose behaviour is chosen by the case id: a well-behaved one plus each adversary the
 * isolation must contain. Written without imports where the behaviour does not need them.
 */
export const ADVERSARIAL_RUBRIC = String.raw`
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { Worker } from "node:worker_threads";
const request = JSON.parse(readFileSync(0, "utf8"));
const id = request.case.case_id;
const respond = (score, extra = {}) =>
  process.stdout.write(JSON.stringify({ schema_version: "evalgate.rubric_response.v1", score: { passed: score >= 0.5, score, breakdown: { quality: score }, failure_modes: [], cost_usd: 99, wall_clock_ms: 1, ...extra } }));
switch (id) {
  case "honest": {
    const input = readFileSync(request.case.input_path + "/data.txt", "utf8");
    const workspace = request.context.workspace_path ? readFileSync(request.context.workspace_path + "/data.txt", "utf8") : "";
    respond(input === workspace ? 1 : 0.25);
    break;
  }
  case "env-snoop": {
    process.stderr.write(JSON.stringify(process.env));
    respond(process.env.ANTHROPIC_API_KEY === undefined && process.env.HOME === undefined ? 1 : 0);
    break;
  }
  case "write-cwd": {
    writeFileSync("left-behind.txt", "x");
    process.stderr.write("CWD=" + process.cwd());
    respond(existsSync("left-behind.txt") ? 1 : 0);
    break;
  }
  case "write-outside": {
    writeFileSync(process.env.TMPDIR + "/../evalgate-escape-" + request.case.case_digest.slice(7, 15) + ".txt", "escaped");
    writeFileSync(request.case.input_path + "/escaped.txt", "escaped");
    respond(1);
    break;
  }
  case "spawn-child": {
    execFileSync("/bin/sh", ["-c", "echo pwned"]);
    respond(1);
    break;
  }
  case "start-worker": {
    new Worker("process.exit(0)", { eval: true });
    respond(1);
    break;
  }
  case "loop-forever": {
    process.stderr.write("CWD=" + process.cwd() + "\n");
    for (;;) {}
  }
  case "print-1gb": {
    const chunk = "x".repeat(1 << 20);
    let written = 0;
    const pump = () => {
      while (written < 1024) {
        written += 1;
        if (!process.stdout.write(chunk)) return process.stdout.once("drain", pump);
      }
    };
    pump();
    break;
  }
  case "invalid-json": {
    process.stdout.write("{ this is not json");
    break;
  }
  case "llm-confidence": {
    respond(0.9, { breakdown: { quality: 0.9, llm_confidence: 0.99 } });
    break;
  }
  case "unknown-failure-code": {
    respond(0.4, { failure_modes: [{ code: "made_up_code", severity: "info", detail: "the rubric invented it" }] });
    break;
  }
  case "read-secret": {
    respond(readFileSync("/etc/shadow", "utf8").length > 0 ? 1 : 0);
    break;
  }
  case "network": {
    const net = await import("node:net");
    const socket = net.connect({ host: "1.1.1.1", port: 53 });
    socket.on("connect", () => { respond(1); socket.destroy(); });
    socket.on("error", (error) => { process.stderr.write("network: " + error.code); respond(0); });
    break;
  }
  default:
    respond(0.5);
}
`;

/** A rubric that uses the published protocol helper, imported through the bench's node_modules. */
export const PROTOCOL_RUBRIC = String.raw`
import { runRubric } from "@eval/rubric-protocol";
await runRubric({
  score(benchCase, harnessOutput) {
    const value = typeof harnessOutput.value === "number" ? harnessOutput.value : 0.5;
    return { passed: value >= 0.5, score: value, breakdown: { quality: value }, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 };
  },
});
`;

export interface BenchSpec {
  readonly slug?: string;
  readonly rubric: string;
  readonly breakdownKeys?: readonly string[];
  readonly failureModes?: Record<string, { severity: "block" | "warn" | "info"; description: string }>;
  /** case id -> contents of input/text.txt (expected/text.txt is its upper-case form). */
  readonly cases: Record<string, string>;
  readonly rubricWallClockSeconds?: number;
}

/**
 * A complete, signed task class under `<root>/bench/<slug>` with `<root>/node_modules/@eval/*`
 * linked to this workspace (how a bench outside the repo resolves the protocol), as the runner loads it.
 */
export async function makeTaskClassBench(
  root: string,
  spec: BenchSpec,
): Promise<{ benchRoot: string; benchPath: string; slug: string }> {
  const { signBench } = await import("@eval/registry");
  const slug = spec.slug ?? "upper";
  const benchRoot = join(root, "bench");
  const benchPath = join(benchRoot, slug);
  await mkdir(join(root, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol"]) {
    await symlink(join(REPO, "packages", name), join(root, "node_modules", "@eval", name)).catch(() => {});
  }
  await mkdir(join(benchPath, "cases"), { recursive: true });
  await writeFile(
    join(root, "package.json"),
    JSON.stringify({ name: "runner-test-root", private: true, type: "module" }),
  );
  await writeFile(
    join(benchPath, "registration.ts"),
    `import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass(${JSON.stringify(slug)}, { min_cases_for_promotion: { bronze: 1 }, min_cases: 1 });\n`,
  );
  await writeFile(
    join(benchPath, "breakdown-keys.ts"),
    `export const BREAKDOWN_KEYS = ${JSON.stringify(spec.breakdownKeys ?? ["quality"])} as const;\n`,
  );
  const modes = spec.failureModes ?? { wrong_text: { severity: "block", description: "The text differs." } };
  await writeFile(
    join(benchPath, "failure_modes.yaml"),
    Object.entries(modes)
      .map(([code, mode]) => `${code}:\n  severity: ${mode.severity}\n  description: ${mode.description}\n`)
      .join(""),
  );
  await writeFile(join(benchPath, "rubric.ts"), spec.rubric);
  await writeFile(
    join(benchPath, "package.json"),
    JSON.stringify({ name: `bench-${slug}`, private: true, type: "module" }),
  );
  await writeFile(
    join(benchPath, "README.md"),
    `# ${slug}\n\nA generated task class for runner tests and benchmarks.\n`,
  );
  for (const [caseId, text] of Object.entries(spec.cases))
    await writeCase(benchPath, slug, caseId, text, spec.rubricWallClockSeconds);
  await signBench({ benchPath, name: slug });
  return { benchRoot, benchPath, slug };
}

export async function writeCase(
  benchPath: string,
  slug: string,
  caseId: string,
  text: string,
  rubricWallClockSeconds?: number,
): Promise<void> {
  const casePath = join(benchPath, "cases", caseId);
  await mkdir(join(casePath, "input"), { recursive: true });
  await mkdir(join(casePath, "expected"), { recursive: true });
  const pin = Buffer.from(caseId).toString("hex").padEnd(32, "0").slice(0, 32);
  await writeFile(
    join(casePath, "case.toml"),
    [
      `case_id = "${caseId}"`,
      `task_class = "${slug}"`,
      `disposition = "positive"`,
      `difficulty = "easy"`,
      `source = "curated"`,
      `curation_class = "held-out"`,
      `added_at = 2026-11-01T00:00:00Z`,
      `last_validated_at = 2026-11-20T00:00:00Z`,
      `cassette_canary_pin = "${pin}"`,
      ...(rubricWallClockSeconds === undefined ? [] : [`rubric_wall_clock_seconds = ${rubricWallClockSeconds}`]),
      "",
    ].join("\n"),
  );
  await writeFile(join(casePath, "input", "text.txt"), text);
  await writeFile(join(casePath, "expected", "text.txt"), text.toUpperCase());
}

/** Scores the share of characters of workspace text.txt that match expected/text.txt (a graded rubric). */
export const UPPER_RUBRIC = String.raw`
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { runRubric } from "@eval/rubric-protocol";
await runRubric({
  score(benchCase, harnessOutput, context) {
    const expected = readFileSync(join(benchCase.expected_path, "text.txt"), "utf8");
    const actual = readFileSync(join(context.workspacePath, "text.txt"), "utf8");
    let same = 0;
    for (let i = 0; i < expected.length; i++) if (actual[i] === expected[i]) same++;
    const score = expected.length === 0 ? 1 : same / expected.length;
    return { passed: score === 1, score, breakdown: { quality: score }, failure_modes: score === 1 ? [] : [{ code: "wrong_text", severity: "block", detail: null }], cost_usd: 0, wall_clock_ms: 0 };
  },
});
`;

/** A module SUT that upper-cases every other character (so scores are graded), spending $0.01. */
export const HALF_UPPER_SUT = String.raw`
import { readFileSync, writeFileSync } from "node:fs";
export async function halfUpper(invocation) {
  const path = invocation.workspacePath + "/text.txt";
  const text = readFileSync(path, "utf8");
  writeFileSync(path, [...text].map((c, i) => (i % 2 === 0 ? c.toUpperCase() : c)).join(""));
  return { cost_usd: 0.01, tag: invocation.invocationTag, seed: invocation.canarySeed };
}
export async function full(invocation) {
  const path = invocation.workspacePath + "/text.txt";
  writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
  return { cost_usd: 1 };
}
export async function boom() { throw new RangeError("the SUT fell over"); }
export function hang(invocation) { return new Promise((resolve) => invocation.signal.addEventListener("abort", () => resolve({}))); }
export async function noop() { return {}; }
export const notAFunction = 42;
`;
