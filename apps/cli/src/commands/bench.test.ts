import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FenceFailureSchema, parseWire, SignResultSchema } from "@eval/models";
import { invoke } from "../test-helpers.ts";

// Fixture benches: a copy of @eval/registry's demo bench in a temp dir, whose node_modules resolves
// @eval/* to this workspace, as a bench package in the repo would.
const repo = join(import.meta.dirname, "..", "..", "..", "..");
const template = join(repo, "packages", "registry", "src", "__fixtures__", "demo-bench");

let root: string;
let benchPath: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "evalgate-cli-bench-"));
  cpSync(template, join(root, "bench"), { recursive: true });
  mkdirSync(join(root, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol"])
    symlinkSync(join(repo, "packages", name), join(root, "node_modules", "@eval", name));
  benchPath = join(root, "bench", "uppercase");
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const lines = (text: string) =>
  text
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe("evalgate bench sign", () => {
  it("writes digests.yaml and prints what changed, then nothing on a re-sign", async () => {
    const first = await invoke(["bench", "sign", "--task-class", "uppercase"], { cwd: root });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(parseWire(SignResultSchema, lines(first.stdout)[0])).toMatchObject({
      task_class: "uppercase",
      added: ["case-01", "case-02", "case-03", "case-04", "case-05", "case-06"],
      written: true,
    });
    writeFileSync(join(benchPath, "cases", "case-02", "expected", "text.txt"), "changed");
    const second = await invoke(["bench", "sign", "--task-class", "uppercase", "--format", "human"], { cwd: root });
    expect(second.stdout).toBe(
      `changed  case-02: expected/text.txt (changed)\nwrote ${join(benchPath, "cases", "digests.yaml")} (5 cases unchanged)\n`,
    );
    const third = await invoke(["bench", "sign", "--task-class", "uppercase", "--format", "human"], { cwd: root });
    expect(third.stdout).toMatch(/^unchanged .*digests\.yaml \(6 cases unchanged\)\n$/);
  });

  it("exit 3 for an unknown task class, exit 4 for a missing bench root", async () => {
    const unknown = await invoke(["bench", "sign", "--task-class", "nope"], { cwd: root });
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toMatch(
      /^evalgate: no task class named "nope" .*available: uppercase.*\(EVAL_TASK_CLASS_NOT_FOUND\)/,
    );
    const missing = await invoke(["bench", "sign", "--task-class", "uppercase", "--bench-root", "elsewhere"], {
      cwd: root,
    });
    expect(missing.code).toBe(4);
    expect(missing.stderr.trim().split("\n")).toHaveLength(1);
  });
});

describe("evalgate bench list before the first sign", () => {
  it("lists a task class whose digests.yaml does not exist yet", async () => {
    const result = await invoke(["bench", "list", "--task-class", "uppercase"], { cwd: root });
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toHaveLength(6);
    expect(lines((await invoke(["bench", "list"], { cwd: root })).stdout)[0]).toMatchObject({ cases: 6 });
    expect((await invoke(["bench", "show", "case-01"], { cwd: root })).code).toBe(1);
  });
});

describe("evalgate bench list / show", () => {
  beforeEach(async () => {
    expect((await invoke(["bench", "sign", "--task-class", "uppercase"], { cwd: root })).code).toBe(0);
  });

  it("lists task classes and one class's cases", async () => {
    const classes = await invoke(["bench", "list"], { cwd: root });
    expect(classes.code).toBe(0);
    expect(lines(classes.stdout)).toEqual([
      expect.objectContaining({
        task_class: "uppercase",
        cases: 6,
        held_out: 5,
        rubric_digest: expect.stringMatching(/^blake3:/),
      }),
    ]);
    const cases = await invoke(["bench", "list", "--task-class", "uppercase"], {
      cwd: root,
      env: { EVALGATE_FORMAT: "human" },
    });
    expect(cases.stdout.trim().split("\n")).toHaveLength(6);
    expect(cases.stdout).toMatch(/^case-01 {2}held-out {2}positive\/easy {2}validated 2026-11-20/);
    expect((await invoke(["bench", "list", "--format", "human"], { cwd: root })).stdout).toMatch(
      /^uppercase {2}6 cases \(5 held-out\)/,
    );
  });

  it("takes the bench root from EVALGATE_BENCH_ROOT", async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "evalgate-cwd-"));
    const result = await invoke(["bench", "list"], {
      cwd: elsewhere,
      env: { EVALGATE_BENCH_ROOT: join(root, "bench") },
    });
    rmSync(elsewhere, { recursive: true });
    expect(lines(result.stdout)[0]).toMatchObject({ task_class: "uppercase" });
  });

  it("shows one verified case, by id, with or without --task-class", async () => {
    const shown = await invoke(["bench", "show", "case-03"], { cwd: root });
    expect(shown.code).toBe(0);
    expect(lines(shown.stdout)[0]).toMatchObject({
      case_id: "case-03",
      case_path: join(benchPath, "cases", "case-03"),
      case_digest: expect.stringMatching(/^blake3:/),
    });
    const human = await invoke(["bench", "show", "case-03", "--task-class", "uppercase", "--format", "human"], {
      cwd: root,
    });
    expect(human.stdout).toContain("case_id: case-03\n");
    const missing = await invoke(["bench", "show", "case-99"], { cwd: root });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no case "case-99" in uppercase/);
  });

  it("exit 6 when the shown case was tampered with; listing still works and warns of stale cases", async () => {
    writeFileSync(join(benchPath, "cases", "case-03", "input", "text.txt"), "tampered");
    const shown = await invoke(["bench", "show", "case-03"], { cwd: root });
    expect(shown.code).toBe(6);
    expect(shown.stderr).toMatch(/case case-03 .*input\/text\.txt \(changed\).*EVAL_CASE_DIGEST_MISMATCH.*bench sign/);
    const text = readFileSync(join(benchPath, "cases", "case-01", "case.toml"), "utf8").replace(
      "last_validated_at = 2026-11-20T00:00:00Z",
      "last_validated_at = 2020-01-01T00:00:00Z",
    );
    writeFileSync(join(benchPath, "cases", "case-01", "case.toml"), text);
    const listed = await invoke(["bench", "list", "--task-class", "uppercase"], { cwd: root });
    expect(listed.code).toBe(0);
    expect(lines(listed.stderr)[0]).toMatchObject({ level: "warn", code: "case.stale" });
  });
});

describe("evalgate fence", () => {
  it("exits 0 on a valid bench with a summary line", async () => {
    await invoke(["bench", "sign", "--task-class", "uppercase"], { cwd: root });
    const result = await invoke(["fence"], { cwd: root });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(lines(result.stdout)).toEqual([
      expect.objectContaining({ schema_version: "evalgate.fence_summary.v1", ok: true, failure_count: 0 }),
    ]);
  });

  it("prints every failure on its own line naming the path, then one error line, exit 1", async () => {
    await invoke(["bench", "sign", "--task-class", "uppercase"], { cwd: root });
    symlinkSync("/etc/passwd", join(benchPath, "cases", "case-02", "input", "passwd"));
    writeFileSync(
      join(benchPath, "breakdown-keys.ts"),
      'export const BREAKDOWN_KEYS = ["exact_match", "llm_confidence"] as const;\n',
    );
    const result = await invoke(["fence", "--format", "human"], { cwd: root });
    expect(result.code).toBe(1);
    const out = result.stdout.trim().split("\n");
    expect(out).toContain(
      `${join(benchPath, "cases", "case-02", "input", "passwd")}: is a symlink; cases may hold only regular files and directories (copy the content in) [case-files]`,
    );
    expect(
      out.some((line) => line.startsWith(`${join(benchPath, "breakdown-keys.ts")}: BREAKDOWN_KEYS: "llm_confidence"`)),
    ).toBe(true);
    expect(result.stderr).toMatch(/^evalgate: fence failed: 2 problems .*\(EVAL_FENCE_FAILED\)/);
    const json = await invoke(["fence"], { cwd: root });
    const failureLines = lines(json.stdout).filter((line) => line.schema_version === "evalgate.fence_failure.v1");
    expect(failureLines).toHaveLength(2);
    for (const line of failureLines) expect(parseWire(FenceFailureSchema, line).path.startsWith(benchPath)).toBe(true);
  });

  const edit = (path: string, from: string, to: string) => {
    const text = readFileSync(path, "utf8");
    if (!text.includes(from)) throw new Error(`fixture edit: ${from} not in ${path}`);
    writeFileSync(path, text.replace(from, to));
  };
  // The planted defects, each through the command: non-zero, the offending path named.
  it.each<[string, (bench: string) => void, (bench: string) => string]>([
    [
      "a flipped byte in expected/",
      (bench) => writeFileSync(join(bench, "cases", "case-03", "expected", "text.txt"), "HELLO NUMBER 4\n"),
      (bench) => join(bench, "cases", "case-03"),
    ],
    [
      "a symlink to /etc/passwd inside input/",
      (bench) => symlinkSync("/etc/passwd", join(bench, "cases", "case-01", "input", "passwd")),
      (bench) => join(bench, "cases", "case-01", "input", "passwd"),
    ],
    [
      "a non-literal task-class name",
      (bench) =>
        edit(join(bench, "registration.ts"), 'registerTaskClass("uppercase",', "registerTaskClass(`uppercase`,"),
      (bench) => join(bench, "registration.ts"),
    ],
    [
      "a breakdown key llm_confidence",
      (bench) => edit(join(bench, "breakdown-keys.ts"), '"length_kept",', '"llm_confidence",'),
      (bench) => join(bench, "breakdown-keys.ts"),
    ],
    [
      "a severity fatal",
      (bench) => edit(join(bench, "failure_modes.yaml"), "severity: block", "severity: fatal"),
      (bench) => join(bench, "failure_modes.yaml"),
    ],
    [
      "a silver-eligible class with 3 held-out cases",
      (bench) => {
        edit(join(bench, "registration.ts"), "min_cases_for_promotion: {}", "min_cases_for_promotion: { silver: 5 }");
        ["case-01", "case-02"].forEach((id) =>
          edit(join(bench, "cases", id, "case.toml"), '"held-out"', '"rag-corpus-derived"'),
        );
      },
      (bench) => join(bench, "cases"),
    ],
    [
      "a duplicated case id",
      (bench) => edit(join(bench, "cases", "case-02", "case.toml"), 'case_id = "case-02"', 'case_id = "case-01"'),
      (bench) => join(bench, "cases", "case-01", "case.toml"),
    ],
  ])("exit 1 naming the path for %s", async (_label, plant, path) => {
    await invoke(["bench", "sign", "--task-class", "uppercase"], { cwd: root });
    plant(benchPath);
    const result = await invoke(["fence", "--format", "human"], { cwd: root });
    expect(result.code).toBe(1);
    expect(
      result.stdout.split("\n").some((line) => line.startsWith(`${path(benchPath)}:`)),
      result.stdout,
    ).toBe(true);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("exit 4 when a registered task class has no bench directory", async () => {
    await invoke(["bench", "sign", "--task-class", "uppercase"], { cwd: root });
    mkdirSync(join(root, "bench", "agentic-recipe-authoring"));
    writeFileSync(
      join(root, "bench", "agentic-recipe-authoring", "registration.ts"),
      'import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass("agentic-recipes", { min_cases_for_promotion: {} });\n',
    );
    const result = await invoke(["fence", "--format", "human"], { cwd: root });
    expect(result.code).toBe(4);
    expect(result.stdout).toContain(join(root, "bench", "agentic-recipes"));
    expect(result.stderr).toContain("EVAL_BENCH_DIR_MISSING");
  });

  it("exit 4 when the bench root is missing, and warns about unregistered directories", async () => {
    expect((await invoke(["fence", "--bench-root", "nowhere"], { cwd: root })).code).toBe(4);
    await invoke(["bench", "sign", "--task-class", "uppercase"], { cwd: root });
    mkdirSync(join(root, "bench", "half-built"));
    const result = await invoke(["fence", "--format", "human"], { cwd: root });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/half-built has no registration\.ts/);
  });

  it("passes on the repo's own bench/", async () => {
    const result = await invoke(["fence"], { cwd: repo });
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });
});
