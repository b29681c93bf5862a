// Every line the BUILT CLI prints in its machine format, validated against the JSON Schema published for it
// (packages/models/schemas/*-line.schema.json, report-data.schema.json) by a JSON Schema validator, not by
// the zod schemas that generate them: what a consumer in another language would check.
import { spawn } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { readFileSync, readdirSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { ValidateFunction } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeUpperBench } from "./commands/run.test-helpers.ts";
import { runBuiltCli } from "./test-helpers.ts";

const BIN = join(import.meta.dirname, "..", "dist", "bin.js");
const SCHEMAS_DIR = join(import.meta.dirname, "..", "..", "..", "packages", "models", "schemas");
/** The published schemas of stdout/stderr lines: every `*-line` schema, plus the documents printed whole as one line. */
const LINE_SCHEMAS = readdirSync(SCHEMAS_DIR)
  .map((file) => file.replace(/\.schema\.json$/, ""))
  .filter((name) => name.endsWith("-line") || name === "report-data");
/** Lines whose document has a schema of its own, printed as is. */
const DOCUMENT_LINES = ["bench-check", "sign-result", "fence-failure", "fence-summary"];

const ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: false });
const validators = new Map<string, ValidateFunction>();
for (const name of [...LINE_SCHEMAS, ...DOCUMENT_LINES])
  validators.set(
    name,
    ajv.compile(JSON.parse(readFileSync(join(SCHEMAS_DIR, `${name}.schema.json`), "utf8")) as object),
  );

/** The schema a line names: by its `type` (or `level`), else by its `schema_version`. */
function schemaOf(line: Record<string, unknown>): string {
  const byType: Record<string, string> = {
    case: "run-case-line",
    run: "run-summary-line",
    verdict: "verdict-line",
    comparison: "comparison-line",
    shard: "shard-line",
    plan: "plan-line",
    merge: "merge-line",
    verify: "verify-line",
    recorded_run: "recorded-run-line",
    report: "report-line",
    anchor: "anchor-line",
    attestation: "attestation-line",
    gc: "gc-line",
    cache_gc: "cache-gc-line",
    cache_stats: "cache-stats-line",
    bench_task_class: "bench-task-class-line",
    bench_case: "bench-case-line",
    bench_show: "bench-show-line",
    adapter: "adapter-line",
    adapter_readiness: "adapter-readiness-line",
    model_stub: "model-stub-line",
    model_stub_stopped: "model-stub-stopped-line",
  };
  if (typeof line.type === "string" && line.type in byType) return byType[line.type]!;
  if (line.level === "warn") return "warning-line";
  const byVersion: Record<string, string> = {
    "evalgate.report_data.v2": "report-data",
    "evalgate.report_case_line.v1": "report-case-line",
    "evalgate.bench_check.v1": "bench-check",
    "evalgate.sign_result.v1": "sign-result",
  };
  return byVersion[String(line.schema_version)] ?? `unknown line ${JSON.stringify(line).slice(0, 200)}`;
}

let bench: { root: string; benchRoot: string; benchPath: string };
let state: string;
const seen = new Map<string, number>();

/** Runs the built CLI; every stdout line and every JSON stderr line must be valid against its schema. */
async function evalgate(args: string[], expectedCode = 0): Promise<Array<Record<string, unknown>>> {
  const result = await runBuiltCli(args, { cwd: bench.root });
  expect(result.code, `${args.join(" ")}: ${result.stderr}`).toBe(expectedCode);
  const stdout = result.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const stderr = result.stderr
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  for (const line of [...stdout, ...stderr]) check(args, line);
  return stdout;
}

/** The line must be valid against the schema it names, and carry its schema version. */
function check(args: string[], line: Record<string, unknown>): void {
  const name = schemaOf(line);
  const validate = validators.get(name);
  expect(validate, `${args[0]}: ${name}`).toBeDefined();
  const ok = validate!(line);
  expect(
    ok ? [] : validate!.errors,
    `${args.join(" ")}: a ${name} line: ${JSON.stringify(line).slice(0, 300)}`,
  ).toEqual([]);
  expect(line.schema_version, `${name} carries its schema version`).toEqual(
    expect.stringMatching(/^evalgate\.[a-z_]+\.v\d+$/),
  );
  seen.set(name, (seen.get(name) ?? 0) + 1);
}

/**
 * `model-stub` serves until a signal: start the built CLI, check its first line, stop it with SIGTERM and check
 * the rest of what it printed.
 */
async function modelStub(): Promise<Array<Record<string, unknown>>> {
  const scenario = join(bench.root, "scenario.yaml");
  await writeFile(scenario, "turns:\n  - text: done\n");
  const args = ["model-stub", "--scenario", scenario];
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: bench.root,
    env: { PATH: process.env.PATH },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const first = await lines.next();
  expect(first.done, `model-stub printed nothing: ${stderr}`).toBe(false);
  const printed = [JSON.parse(first.value as string) as Record<string, unknown>];
  child.kill("SIGTERM");
  for (let next = await lines.next(); next.done !== true; next = await lines.next())
    if (next.value !== "") printed.push(JSON.parse(next.value) as Record<string, unknown>);
  expect(await exited, stderr).toBe(0);
  for (const line of printed) check(args, line);
  return printed;
}

beforeAll(async () => {
  bench = await makeUpperBench({ "a-1": "alpha", "a-2": "beta", "b-1": "gamma" });
  state = join(bench.root, ".evalgate");
  await writeFile(
    join(bench.root, "tiers.yaml"),
    "schema_version: evalgate.trust_tiers.v1\ncalibrated: false\ntiers:\n  - { name: untrusted, threshold: 0, min_cases: 0, min_held_out: 0 }\n  - { name: bronze, threshold: 0.5, min_cases: 1, min_held_out: 0 }\ncurrent:\n  upper: untrusted\n",
  );
}, 60_000);
afterAll(async () => {
  await rm(bench.root, { recursive: true, force: true });
});

describe("every machine-readable line the CLI prints has a published schema it satisfies", () => {
  it(
    "run, rescore, plan/shard/merge, verify, promote-verdict, compare, show, runs, report, anchor, attest, gc, cache, bench list/show, adapters list/doctor, model-stub",
    { timeout: 600_000 },
    async () => {
      const common = ["--out", state, "--bench-root", bench.benchRoot];
      const tiers = ["--trust-tiers", join(bench.root, "tiers.yaml")];
      const sut = ["--sut", "module:sut.mjs#upper", "--sandbox", "none"];
      // The default state directory, new: announced with a warning line on stderr.
      const first = await evalgate([
        "run",
        "--task-class",
        "upper",
        ...sut,
        "--bench-root",
        bench.benchRoot,
        ...tiers,
        "--with-verdict",
      ]);
      expect(first.map((line) => line.type)).toEqual(["case", "case", "case", "run", "verdict"]);
      const trials = await evalgate(["run", "--task-class", "upper", ...sut, ...common, "--trials", "2", "--no-cache"]);
      expect(trials.filter((line) => line.type === "case").map((line) => line.trial)).toEqual([0, 1, 0, 1, 0, 1]);
      const [firstRun, trialRun] = [first[3]!.run_id as string, trials.at(-1)!.run_id as string];
      const rescored = await evalgate(["rescore", "--run", firstRun, "--sandbox", "none", ...common]);
      expect(rescored.at(-1)).toMatchObject({ type: "run", rescore_of: { run_id: firstRun } });
      await evalgate([
        "compare",
        "--baseline",
        firstRun,
        "--candidate",
        rescored.at(-1)!.run_id as string,
        "--write",
        "--out",
        state,
      ]);
      await evalgate(["promote-verdict", "--task-class", "upper", ...common, ...tiers]);
      await evalgate(["verify", "--out", state]);
      await evalgate(["runs", "--out", state]);
      const shown = await evalgate(["show", trialRun, "--format", "jsonl", ...common, ...tiers]);
      expect(shown[0]!.schema_version).toBe("evalgate.report_data.v2");
      expect((await evalgate(["show", trialRun, "--case", "a-1", "--format", "jsonl", ...common]))[0]).toMatchObject({
        run_id: trialRun,
        case_id: "a-1",
        trials: { passed: 2, total: 2 },
      });
      expect(
        (await evalgate(["show", trialRun, "--case", "a-1", "--trial", "1", "--format", "json", ...common]))[0],
      ).toMatchObject({ run_id: trialRun, case_id: "a-1" });
      await evalgate(["report", "--run", trialRun, ...common, ...tiers, "--output", join(bench.root, "report.html")]);
      await evalgate(["anchor", "--out", state, "--write", join(bench.root, "anchor.json")]);
      await writeFile(
        join(bench.root, "key.pem"),
        generateKeyPairSync("ed25519").privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
      );
      await evalgate([
        "attest",
        firstRun,
        "--out",
        state,
        "--write",
        join(bench.root, "run.intoto.json"),
        "--signing-key",
        join(bench.root, "key.pem"),
      ]);
      await evalgate([
        "plan",
        "--task-class",
        "upper",
        "--bench-root",
        bench.benchRoot,
        "--sut",
        "module:sut.mjs#upper",
        "--sandbox",
        "none",
        "--output",
        join(bench.root, "plan.json"),
      ]);
      await evalgate([
        "run",
        "--plan",
        join(bench.root, "plan.json"),
        "--shard",
        "1/1",
        "--bundle",
        join(bench.root, "bundle"),
        "--sandbox",
        "none",
        ...common,
      ]);
      await evalgate([
        "merge",
        join(bench.root, "bundle"),
        "--out",
        join(bench.root, "merged"),
        "--bench-root",
        bench.benchRoot,
      ]);
      await evalgate(["cache", "stats", "--out", state]);
      await evalgate(["cache", "gc", "--out", state, "--older-than-days", "30"]);
      await evalgate(["gc", "--out", state]);
      await evalgate(
        ["bench", "check", "--task-class", "upper", "--sandbox", "none", "--bench-root", bench.benchRoot],
        1,
      );
      expect(
        (await evalgate(["bench", "list", "--bench-root", bench.benchRoot])).map((line) => line.task_class),
      ).toEqual(["upper"]);
      expect(await evalgate(["bench", "list", "--task-class", "upper", "--bench-root", bench.benchRoot])).toHaveLength(
        3,
      );
      expect(
        (await evalgate(["bench", "show", "a-1", "--task-class", "upper", "--bench-root", bench.benchRoot]))[0],
      ).toMatchObject({ case_id: "a-1" });
      expect((await evalgate(["adapters", "list"])).length).toBeGreaterThan(0);
      expect((await evalgate(["adapters", "doctor", "--out", state])).map((line) => line.adapter)).toEqual([
        "claude-code",
        "codex",
        "gemini",
        "pi",
      ]);
      expect((await modelStub()).map((line) => line.type)).toEqual(["model_stub", "model_stub_stopped"]);

      // Every published line schema was met by a real line (a new line needs a command here that prints it).
      const unmet = LINE_SCHEMAS.filter((name) => !seen.has(name));
      expect(unmet).toEqual([]);
    },
  );
});
