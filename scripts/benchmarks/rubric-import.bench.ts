// What the documented rubric idiom costs per case: a rubric written as docs/bench-authoring.md teaches
// (`runRubric` from @eval/rubric-protocol, here returning a fixed score) against a rubric that imports
// nothing and does the same work by hand (read stdin, JSON.parse, write one response line). Each run is
// a fresh `node rubric.ts` with a real RubricRequest on stdin, as the runner starts one per case: once
// with no compile cache (plain `node rubric.ts`), once with a warm one (what the runner gives a rubric).
// The rubrics alternate, ROUNDS runs each; medians of wall time and CPU (user + sys of the child, from
// its rusage via bash's `time`, which adds nothing to the child). Goal: the idiom within 1.1x of the
// bare rubric, wall and CPU, in both settings. For scale, a third rubric imports a minimal package
// shaped like ours ("exports" map, an index re-exporting one module) whose runRubric only reads, parses
// and writes: what importing any package costs before the protocol does anything (informational).
// Needs built packages (`pnpm build`): the rubric resolves @eval/rubric-protocol to its dist, as a run does.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { BenchRow } from "../bench.ts";
import { median } from "./timing.ts";

const ROUNDS = 60;
const GOAL = 1.1;
const REPO = join(import.meta.dirname, "..", "..");

/** One request as the runner writes it: a loaded case, an agent SUT's output, the workspace. */
const REQUEST = {
  schema_version: "evalgate.rubric_request.v1",
  case: {
    case_id: "lodash-cve-2021-23337",
    task_class: "vuln-remediation",
    title: "Remediate the lodash command-injection advisory",
    prompt: "Upgrade the vulnerable dependency so that no advisory applies; change nothing else.",
    disposition: "positive",
    difficulty: "medium",
    source: "curated",
    curation_class: "held-out",
    commit_sha: null,
    added_at: "2026-11-01T00:00:00Z",
    last_validated_at: "2026-11-20T09:30:00.000+01:00",
    cassette_canary_pin: "0123456789abcdef0123456789abcdef",
    case_path: "/bench/vuln-remediation/cases/lodash-cve-2021-23337",
    input_path: "/bench/vuln-remediation/cases/lodash-cve-2021-23337/input",
    expected_path: "/bench/vuln-remediation/cases/lodash-cve-2021-23337/expected",
    cassette_path: "/bench/vuln-remediation/cases/lodash-cve-2021-23337/cassette",
    case_digest: `blake3:${"ab".repeat(32)}`,
  },
  harness_output: {
    cost_usd: 0.0132,
    trial_class: "parse_success",
    final_message: "Upgraded lodash to 4.17.21 and regenerated the lockfile.",
    tool_calls: Array.from({ length: 12 }, (_, index) => ({
      name: index % 2 === 0 ? "bash" : "edit",
      status: "ok",
      duration_ms: 40 + index,
    })),
  },
  context: { workspace_path: "/tmp/evalgate-ws-0001" },
};

const SCORE = `{ passed: true, score: 1, breakdown: { advisories_fixed: 1, scope: 1 }, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 }`;

/** The documented idiom (docs/bench-authoring.md, "The rubric"). */
const IDIOM = `import { runRubric, type Rubric } from "@eval/rubric-protocol";

const rubric: Rubric = {
  score(benchCase, harnessOutput, context) {
    return ${SCORE};
  },
};

if (import.meta.main) await runRubric(rubric);
export default rubric;
`;

/** The idiom against a package that only reads, parses and writes: the floor of importing a package. */
const FLOOR = IDIOM.replace("@eval/rubric-protocol", "@bench/minimal-package");
const MINIMAL_PACKAGE: Record<string, string> = {
  "package.json": JSON.stringify({
    name: "@bench/minimal-package",
    type: "module",
    exports: { ".": { types: "./dist/index.d.ts", default: "./dist/index.js" } },
  }),
  "dist/index.js": 'export { runRubric } from "./run.js";\n',
  "dist/run.js": `export async function runRubric(rubric) {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const request = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  const score = await rubric.score(request.case, request.harness_output, { workspacePath: request.context.workspace_path });
  process.stdout.write(\`\${JSON.stringify({ schema_version: "evalgate.rubric_response.v1", score })}\\n\`);
}
`,
};

/** The same work with nothing imported. */
const BARE = `const chunks: Buffer[] = [];
for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
const request = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { schema_version?: unknown };
if (request.schema_version !== "evalgate.rubric_request.v1") {
  process.stderr.write("rubric: invalid request\\n");
  process.exitCode = 2;
} else {
  const score = ${SCORE};
  process.stdout.write(\`\${JSON.stringify({ schema_version: "evalgate.rubric_response.v1", score })}\\n\`);
}
`;

interface Sample {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly stdout: string;
}

/** One `node <file>` with the request on stdin, timed by bash's `time` (real, and the child's user + sys). */
function runOnce(file: string, env: NodeJS.ProcessEnv, input: string): Sample {
  const script = `TIMEFORMAT='%3R %3U %3S'; time "$0" "$1"`;
  const result = spawnSync("bash", ["-c", script, process.execPath, file], { env, input, encoding: "utf8" });
  if (result.status !== 0) throw new Error(`node ${file} exited ${result.status}: ${result.stderr}`);
  const timing = result.stderr.trimEnd().split("\n").at(-1)!.split(" ").map(Number);
  if (timing.length !== 3 || timing.some((value) => !Number.isFinite(value)))
    throw new Error(`unexpected timing output from bash: ${result.stderr}`);
  const [real, user, sys] = timing as [number, number, number];
  return { wallMs: real * 1000, cpuMs: (user + sys) * 1000, stdout: result.stdout };
}

interface Rubrics {
  readonly bare: string;
  readonly floor: string;
  readonly idiom: string;
}

/** The rubrics alternated ROUNDS times under one environment; rows with medians and ratios. */
function measure(label: string, rubrics: Rubrics, env: NodeJS.ProcessEnv, input: string): BenchRow[] {
  const names = Object.keys(rubrics) as (keyof Rubrics)[];
  // A first run of each fills the compile cache when there is one (the runner keeps one per rubric
  // digest, so every case after the first finds it warm), and checks they all answer the same.
  const answers = new Set(names.map((name) => runOnce(rubrics[name], env, input).stdout));
  if (answers.size !== 1) throw new Error(`the rubrics answer differently:\n${[...answers].join("\n")}`);
  const runs: Record<keyof Rubrics, Sample[]> = { bare: [], floor: [], idiom: [] };
  for (let round = 0; round < ROUNDS; round += 1) {
    // Rotate which goes first, so drift on a shared machine hits all alike.
    for (let index = 0; index < names.length; index += 1) {
      const name = names[(round + index) % names.length]!;
      runs[name].push(runOnce(rubrics[name], env, input));
    }
  }
  const wall = (name: keyof Rubrics): number => median(runs[name].map((run) => run.wallMs));
  const cpu = (name: keyof Rubrics): number => median(runs[name].map((run) => run.cpuMs));
  const ms = (value: number): string => `${value.toFixed(1)} ms`;
  const both = (name: keyof Rubrics): string => `${ms(wall(name))} / ${ms(cpu(name))}`;
  const wallRatio = wall("idiom") / wall("bare");
  const cpuRatio = cpu("idiom") / cpu("bare");
  const benchmark = `rubric-import (${label})`;
  return [
    { benchmark, measure: `imports nothing: wall / cpu user+sys (median of ${ROUNDS})`, value: both("bare") },
    {
      benchmark,
      measure: `minimal package, for scale: wall / cpu (median of ${ROUNDS})`,
      value: `${both("floor")} (${(wall("floor") / wall("bare")).toFixed(2)}x / ${(cpu("floor") / cpu("bare")).toFixed(2)}x)`,
    },
    { benchmark, measure: `runRubric idiom: wall / cpu user+sys (median of ${ROUNDS})`, value: both("idiom") },
    {
      benchmark,
      measure: "idiom / imports nothing, wall",
      value: `${wallRatio.toFixed(2)}x`,
      goal: `<= ${GOAL}x`,
      ok: wallRatio <= GOAL,
    },
    {
      benchmark,
      measure: "idiom / imports nothing, cpu",
      value: `${cpuRatio.toFixed(2)}x`,
      goal: `<= ${GOAL}x`,
      ok: cpuRatio <= GOAL,
    },
  ];
}

export default async function rubricImport(): Promise<BenchRow[]> {
  const root = mkdtempSync(join(tmpdir(), "evalgate-bench-rubric-import-"));
  try {
    mkdirSync(join(root, "node_modules", "@eval"), { recursive: true });
    // Linked like a bench's own dependency (pnpm links workspace packages).
    symlinkSync(join(REPO, "packages", "rubric-protocol"), join(root, "node_modules", "@eval", "rubric-protocol"));
    for (const [file, text] of Object.entries(MINIMAL_PACKAGE)) {
      const path = join(root, "node_modules", "@bench", "minimal-package", file);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, text);
    }
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ name: "rubric-import-bench", private: true, type: "module" }),
    );
    const rubrics: Rubrics = {
      bare: join(root, "bare.ts"),
      floor: join(root, "floor.ts"),
      idiom: join(root, "idiom.ts"),
    };
    writeFileSync(rubrics.bare, BARE);
    writeFileSync(rubrics.floor, FLOOR);
    writeFileSync(rubrics.idiom, IDIOM);
    const input = JSON.stringify(REQUEST);
    const baseEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8", TZ: "UTC" };
    return [
      ...measure("no compile cache", rubrics, baseEnv, input),
      ...measure("warm compile cache", rubrics, { ...baseEnv, NODE_COMPILE_CACHE: join(root, "compile-cache") }, input),
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
