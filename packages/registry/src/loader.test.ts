import { appendFileSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { EvalWarning } from "@eval/errors";
import { afterEach, describe, expect, it } from "vitest";
import { loadCases } from "./case-loader.ts";
import { makeFixtureBench, type FixtureBench } from "./fixture-bench.test-helpers.ts";
import { lockedDependencyClosure } from "./lockfiles/dependency-closure.ts";
import { signBench } from "./sign.ts";
import { loadAllTaskClasses, loadTaskClass } from "./task-class-loader.ts";
import { TaskClassRegistry } from "./task-class-registry.ts";

let fixture: FixtureBench | undefined;
afterEach(() => fixture?.cleanup());

async function setup(options: { sign?: boolean } = {}): Promise<FixtureBench> {
  fixture = await makeFixtureBench(options);
  return fixture;
}

function edit(path: string, from: string, to: string): void {
  const text = readFileSync(path, "utf8");
  if (!text.includes(from)) throw new Error(`fixture edit: ${from} not in ${path}`);
  writeFileSync(path, text.replace(from, to));
}

const load = (bench: FixtureBench, name = "uppercase") =>
  loadTaskClass(name, { benchRoot: bench.benchRoot, registry: new TaskClassRegistry() });

describe("loadTaskClass", () => {
  it("imports registration.ts with no build step and reads the sibling files", async () => {
    const bench = await setup();
    const taskClass = await load(bench);
    expect(taskClass).toMatchObject({
      name: "uppercase",
      benchPath: bench.benchPath,
      registrationPath: join(bench.benchPath, "registration.ts"),
      minCasesForPromotion: {},
      minCases: 3,
      rubricCommand: null,
      rubricPath: join(bench.benchPath, "rubric.ts"),
      description: "Upper-case a text file.",
    });
    expect([...taskClass.breakdownKeys]).toEqual(["exact_match", "length_kept"]);
    expect(taskClass.failureModeTaxonomy.wrong_text?.severity).toBe("block");
    expect(taskClass.rubricDigest).toMatch(/^blake3:[0-9a-f]{64}$/);
    expect(Object.isFrozen(taskClass)).toBe(true);
  });

  it("registers into the given registry, once per origin", async () => {
    const bench = await setup();
    const registry = new TaskClassRegistry();
    const first = await loadTaskClass("uppercase", { benchRoot: bench.benchRoot, registry });
    expect(registry.get("uppercase")).toBe(first);
    expect(await loadTaskClass("uppercase", { benchRoot: bench.benchRoot, registry })).toBe(first);
    expect(
      (await loadAllTaskClasses({ benchRoot: bench.benchRoot, registry: new TaskClassRegistry() })).map(
        (entry) => entry.name,
      ),
    ).toEqual(["uppercase"]);
  });

  it("rubric digest: stable across loads, changes with the rubric, breakdown keys, taxonomy or a helper module, not with cases or docs", async () => {
    const bench = await setup();
    const digest = async () =>
      (await loadTaskClass("uppercase", { benchRoot: bench.benchRoot, registry: new TaskClassRegistry() }))
        .rubricDigest;
    const base = await digest();
    expect(await digest()).toBe(base);
    appendFileSync(join(bench.benchPath, "README.md"), "more docs\n");
    writeFileSync(join(bench.benchPath, "cases", "case-01", "expected", "text.txt"), "changed");
    expect(await digest()).toBe(base);
    const seen = new Set([base]);
    for (const file of ["rubric.ts", "failure_modes.yaml", "helper.ts", "breakdown-keys.ts"]) {
      appendFileSync(
        join(bench.benchPath, file),
        file.endsWith(".json") ? " " : "\n# x\n".replace("#", file.endsWith(".ts") ? "//" : "#"),
      );
      const next = await digest();
      expect(seen.has(next), file).toBe(false);
      seen.add(next);
    }
  });

  it("exit 3: an unregistered name lists what is available", async () => {
    const bench = await setup();
    await expect(load(bench, "nope")).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_NOT_FOUND",
      message: expect.stringContaining("available: uppercase"),
    });
  });

  it("exit 4: a missing bench root, and a registered class without its bench directory", async () => {
    const bench = await setup();
    await expect(loadTaskClass("uppercase", { benchRoot: join(bench.root, "missing") })).rejects.toMatchObject({
      code: "EVAL_BENCH_DIR_MISSING",
    });
    mkdirSync(join(bench.benchRoot, "orphan"));
    writeFileSync(
      join(bench.benchRoot, "orphan", "registration.ts"),
      'import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass("ghost-class", { min_cases_for_promotion: {} });\n',
    );
    await expect(load(bench, "ghost-class")).rejects.toMatchObject({
      code: "EVAL_BENCH_DIR_MISSING",
      message: expect.stringContaining(join(bench.benchRoot, "ghost-class")),
    });
  });

  it("names both origins when two registrations claim one name", async () => {
    const bench = await setup();
    mkdirSync(join(bench.benchRoot, "copy"));
    writeFileSync(
      join(bench.benchRoot, "copy", "registration.ts"),
      readFileSync(join(bench.benchPath, "registration.ts")),
    );
    await expect(load(bench)).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_ALREADY_REGISTERED",
      message: expect.stringMatching(
        /uppercase\/registration\.ts.*copy\/registration\.ts|copy\/registration\.ts.*uppercase\/registration\.ts/,
      ),
    });
  });

  it.each(["rubric.ts", "breakdown-keys.ts", "failure_modes.yaml", "cases/digests.yaml", "README.md"])(
    "fails loudly naming a missing %s",
    async (file) => {
      const bench = await setup();
      rmSync(join(bench.benchPath, file));
      await expect(load(bench)).rejects.toMatchObject({
        code: "EVAL_TASK_CLASS_INCOMPLETE",
        message: expect.stringContaining(join(bench.benchPath, file)),
      });
    },
  );

  it("does not need rubric.ts when a rubric command is declared", async () => {
    const bench = await setup();
    edit(
      join(bench.benchPath, "registration.ts"),
      "min_cases: 3,",
      'min_cases: 3, rubric_command: ["python3", "./rubric.py"],',
    );
    rmSync(join(bench.benchPath, "rubric.ts"));
    const taskClass = await load(bench);
    expect(taskClass.rubricCommand).toEqual(["python3", "./rubric.py"]);
    expect(taskClass.rubricPath).toBeNull();
  });

  it("reads the agent declaration, which is part of the rubric digest (absent: null)", async () => {
    const bench = await setup();
    const before = await load(bench);
    expect(before.agent).toBeNull();
    edit(
      join(bench.benchPath, "registration.ts"),
      "min_cases: 3,",
      'min_cases: 3, agent: { edits: ["out.txt"], adapters: { pi: { model: "m" } } },',
    );
    const after = await load(bench);
    expect(after.agent).toEqual({ edits: ["out.txt"], adapters: { pi: { model: "m" } } });
    expect(after.rubricDigest).not.toBe(before.rubricDigest);
  });

  it("makes a ./program rubric command absolute, and requires the program", async () => {
    const bench = await setup();
    edit(
      join(bench.benchPath, "registration.ts"),
      "min_cases: 3,",
      'min_cases: 3, rubric_command: ["./rubric.py", "--strict"],',
    );
    await expect(load(bench)).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_INCOMPLETE",
      message: expect.stringContaining(join(bench.benchPath, "rubric.py")),
    });
    writeFileSync(join(bench.benchPath, "rubric.py"), "#!/usr/bin/env python3\n");
    expect((await load(bench)).rubricCommand).toEqual([join(bench.benchPath, "rubric.py"), "--strict"]);
  });

  it.each([
    [
      "breakdown key llm_confidence",
      "breakdown-keys.ts",
      '"length_kept",',
      '"length_kept", "llm_confidence",',
      /llm_confidence" contains "(confidence|llm)"/,
    ],
    [
      "duplicate breakdown key",
      "breakdown-keys.ts",
      '"length_kept",',
      '"length_kept", "exact_match",',
      /appears twice/,
    ],
    ["non-snake-case key", "breakdown-keys.ts", '"length_kept",', '"Length Kept",', /snake_case/],
    ["severity fatal", "failure_modes.yaml", "severity: warn", "severity: fatal", /length_changed\.severity/],
    [
      "reserved failure code",
      "failure_modes.yaml",
      "length_changed:",
      "rubric.length_changed:",
      /reserved for the harness/,
    ],
    ["bad options", "registration.ts", "min_cases: 3,", "min_cases: 0,", /options\.min_cases/],
    [
      "no registerTaskClass default export",
      "registration.ts",
      "export default registerTaskClass(",
      "export const notDefault = registerTaskClass(",
      /default export must be registerTaskClass/,
    ],
  ])("rejects %s naming the file", async (_label, file, from, to, message) => {
    const bench = await setup();
    edit(join(bench.benchPath, file), from, to);
    await expect(load(bench)).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_INVALID",
      message: expect.stringMatching(message),
    });
    await expect(load(bench)).rejects.toMatchObject({ message: expect.stringContaining(join(bench.benchPath, file)) });
  });

  it("rejects failure_modes.yaml that is not YAML, and breakdown-keys.ts without the export", async () => {
    const bench = await setup();
    writeFileSync(join(bench.benchPath, "failure_modes.yaml"), "a: [unclosed\n");
    await expect(load(bench)).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_INVALID",
      message: expect.stringContaining("not valid YAML"),
    });
    const other = await makeFixtureBench();
    writeFileSync(join(other.benchPath, "breakdown-keys.ts"), "export const KEYS = [];\n");
    await expect(load(other)).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_INVALID",
      message: expect.stringContaining("BREAKDOWN_KEYS"),
    });
    other.cleanup();
  });
});

describe("loadCases", () => {
  it("returns verified cases sorted by case_id, with paths and the cassette when present", async () => {
    const bench = await setup();
    mkdirSync(join(bench.benchPath, "cases", "case-02", "cassette"));
    writeFileSync(join(bench.benchPath, "cases", "case-02", "cassette", "stdout.jsonl"), "{}\n");
    await signBench({ benchPath: bench.benchPath });
    const cases = await loadCases(await load(bench));
    expect(cases.map((benchCase) => benchCase.case_id)).toEqual([
      "case-01",
      "case-02",
      "case-03",
      "case-04",
      "case-05",
      "case-06",
    ]);
    const [first, second] = cases;
    expect(first).toMatchObject({
      task_class: "uppercase",
      case_path: join(bench.benchPath, "cases", "case-01"),
      input_path: join(bench.benchPath, "cases", "case-01", "input"),
      expected_path: join(bench.benchPath, "cases", "case-01", "expected"),
      cassette_path: null,
      commit_sha: null,
    });
    expect(second!.cassette_path).toBe(join(bench.benchPath, "cases", "case-02", "cassette"));
    const digests = readFileSync(join(bench.benchPath, "cases", "digests.yaml"), "utf8");
    expect(digests).toContain(first!.case_digest);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it("verifies only the filtered cases", async () => {
    const bench = await setup();
    writeFileSync(join(bench.benchPath, "cases", "case-05", "expected", "text.txt"), "tampered");
    const taskClass = await load(bench);
    const only = await loadCases(taskClass, { filter: (benchCase) => benchCase.case_id === "case-02" });
    expect(only.map((benchCase) => benchCase.case_id)).toEqual(["case-02"]);
    await expect(loadCases(taskClass)).rejects.toMatchObject({ code: "EVAL_CASE_DIGEST_MISMATCH" });
  });

  it("exit 6: a flipped byte in expected/ names the case and the file", async () => {
    const bench = await setup();
    const path = join(bench.benchPath, "cases", "case-03", "expected", "text.txt");
    const bytes = readFileSync(path);
    bytes[0] = bytes[0]! ^ 0x01;
    writeFileSync(path, bytes);
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_DIGEST_MISMATCH",
      message: expect.stringMatching(/case case-03 .*expected\/text\.txt \(changed\)/),
    });
  });

  it("exit 6: added and removed files, a case missing from digests.yaml, a listed case deleted", async () => {
    const bench = await setup();
    writeFileSync(join(bench.benchPath, "cases", "case-01", "input", "extra.txt"), "x");
    rmSync(join(bench.benchPath, "cases", "case-01", "input", "text.txt"));
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      message: expect.stringMatching(/input\/extra\.txt \(added\), input\/text\.txt \(removed\)/),
    });
    await signBench({ benchPath: bench.benchPath });
    renameSync(join(bench.benchPath, "cases", "case-06"), join(bench.root, "case-06"));
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_DIGEST_MISMATCH",
      message: expect.stringContaining("listed in cases/digests.yaml but its directory is missing"),
    });
    renameSync(join(bench.root, "case-06"), join(bench.benchPath, "cases", "case-07"));
    edit(join(bench.benchPath, "cases", "case-07", "case.toml"), '"case-06"', '"case-07"');
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      message: expect.stringMatching(/case-07 .*has no entry in cases\/digests\.yaml/),
    });
  });

  it("a symlink to /etc/passwd inside input/ is unsafe, named, and never read", async () => {
    const bench = await setup();
    const link = join(bench.benchPath, "cases", "case-02", "input", "passwd");
    symlinkSync("/etc/passwd", link);
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_UNSAFE_PATH",
      message: expect.stringContaining(link),
    });
  });

  it("a symlinked case directory or input/ is unsafe", async () => {
    const bench = await setup();
    symlinkSync(join(bench.benchPath, "cases", "case-01"), join(bench.benchPath, "cases", "case-99"));
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_UNSAFE_PATH",
      message: expect.stringContaining("case-99"),
    });
    rmSync(join(bench.benchPath, "cases", "case-99"));
    rmSync(join(bench.benchPath, "cases", "case-01", "input"), { recursive: true });
    symlinkSync("/tmp", join(bench.benchPath, "cases", "case-01", "input"));
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_UNSAFE_PATH",
      message: expect.stringContaining("case-01/input"),
    });
  });

  it.each([
    [
      "invalid TOML",
      "case-02",
      'difficulty = "easy"',
      'difficulty = = "easy"',
      /case-02\/case\.toml: invalid TOML at line 5/,
    ],
    [
      "a bad literal",
      "case-02",
      'disposition = "positive"',
      'disposition = "maybe"',
      /case-02\/case\.toml: disposition: /,
    ],
    [
      "an unknown key",
      "case-02",
      'difficulty = "easy"',
      'difficulty = "easy"\nllm_confidence = 0.9',
      /case-02\/case\.toml: .*llm_confidence/,
    ],
    ["a local timestamp", "case-02", "added_at = 2026-11-01T00:00:00Z", "added_at = 2026-11-01T00:00:00", /added_at: /],
    [
      "a wrong task_class",
      "case-02",
      'task_class = "uppercase"',
      'task_class = "other"',
      /task_class: "other" must be "uppercase"/,
    ],
    [
      "case_id unlike its directory",
      "case-02",
      'case_id = "case-02"',
      'case_id = "renamed"',
      /case_id: "renamed" must equal its directory name "case-02"/,
    ],
  ])("exit 1: %s names the file, field and reason", async (_label, caseId, from, to, message) => {
    const bench = await setup();
    edit(join(bench.benchPath, "cases", caseId, "case.toml"), from, to);
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_LOAD_FAILED",
      message: expect.stringMatching(message),
    });
  });

  it.each([
    [
      "an impossible day",
      "added_at = 2026-11-01T00:00:00Z",
      "added_at = 2026-02-30T00:00:00Z",
      "added_at",
      /added_at: 2026-02-30 is not a calendar date/,
    ],
    [
      "an impossible day (offset)",
      "last_validated_at = 2026-11-20T00:00:00Z",
      "last_validated_at = 2026-04-31T10:00:00+02:00",
      "last_validated_at",
      /last_validated_at: 2026-04-31 is not a calendar date/,
    ],
    [
      "a local date-time",
      "added_at = 2026-11-01T00:00:00Z",
      "added_at = 2026-11-01T00:00:00",
      "added_at",
      /added_at: a local date-time has no offset/,
    ],
    [
      "a local date",
      "added_at = 2026-11-01T00:00:00Z",
      "added_at = 2026-11-01",
      "added_at",
      /added_at: a local date has no time and offset/,
    ],
    [
      "a quoted string",
      "last_validated_at = 2026-11-20T00:00:00Z",
      'last_validated_at = "2026-11-20T00:00:00Z"',
      "last_validated_at",
      /last_validated_at: a string, not a TOML date-time/,
    ],
    [
      "a number",
      "added_at = 2026-11-01T00:00:00Z",
      "added_at = 20261101",
      "added_at",
      /added_at: a number, not a TOML date-time/,
    ],
    [
      "a time of day",
      "added_at = 2026-11-01T00:00:00Z",
      "added_at = 03:30:00",
      "added_at",
      /added_at: a time of day has no date/,
    ],
  ])(
    "exit 1: %s in a date field names the file, the field and what to write",
    async (_label, from, to, field, message) => {
      const bench = await setup();
      const tomlPath = join(bench.benchPath, "cases", "case-02", "case.toml");
      edit(tomlPath, from, to);
      const error = await loadCases(await load(bench)).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ code: "EVAL_CASE_LOAD_FAILED", message: expect.stringMatching(message) });
      const text = (error as Error).message;
      expect(text).toContain(`${tomlPath}: ${field}: `);
      expect(text).toMatch(new RegExp(`write it as ${field} = \\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z`));
      expect(text).not.toContain("\n");
    },
  );

  it("a duplicated case id names both case.toml paths", async () => {
    const bench = await setup();
    edit(join(bench.benchPath, "cases", "case-04", "case.toml"), 'case_id = "case-04"', 'case_id = "case-03"');
    const error = await loadCases(await load(bench)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "EVAL_CASE_LOAD_FAILED" });
    const { inspectCases } = await import("./case-loader.ts");
    const inspection = await inspectCases(await load(bench));
    const collision = inspection.findings.find((entry) => entry.error.code === "EVAL_CASE_ID_COLLISION");
    expect(collision?.error.message).toContain(join(bench.benchPath, "cases", "case-03", "case.toml"));
    expect(collision?.error.message).toContain(join(bench.benchPath, "cases", "case-04", "case.toml"));
  });

  it("missing case.toml, input/ or expected/ fail naming the path", async () => {
    const bench = await setup();
    rmSync(join(bench.benchPath, "cases", "case-02", "case.toml"));
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_LOAD_FAILED",
      message: expect.stringContaining("case-02/case.toml: missing"),
    });
    rmSync(join(bench.benchPath, "cases", "case-01", "expected"), { recursive: true });
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      message: expect.stringContaining("case-01/expected: expected/ not found"),
    });
  });

  it("a stale last_validated_at warns (case.stale) and the case still loads", async () => {
    const bench = await setup();
    const warnings: EvalWarning[] = [];
    const cases = await loadCases(await load(bench), {
      onWarning: (warning) => warnings.push(warning),
      now: new Date("2027-03-01T00:00:00Z"),
    });
    expect(cases).toHaveLength(6);
    expect(warnings.map((warning) => warning.code)).toEqual(Array(6).fill("case.stale"));
    expect(warnings[0]!.message).toMatch(/case-01 .* more than 90 days ago/);
    const fresh: EvalWarning[] = [];
    await loadCases(await load(bench), {
      onWarning: (warning) => fresh.push(warning),
      now: new Date("2026-12-01T00:00:00Z"),
    });
    expect(fresh).toEqual([]);
  });

  it("rejects a malformed digests.yaml and stray files in cases/", async () => {
    const bench = await setup();
    writeFileSync(join(bench.benchPath, "cases", "notes.txt"), "x");
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_LOAD_FAILED",
      message: expect.stringContaining("notes.txt"),
    });
    rmSync(join(bench.benchPath, "cases", "notes.txt"));
    writeFileSync(join(bench.benchPath, "cases", "digests.yaml"), "schema_version: nope\n");
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      code: "EVAL_CASE_LOAD_FAILED",
      message: expect.stringContaining("digests.yaml"),
    });
    writeFileSync(join(bench.benchPath, "cases", "digests.yaml"), "a: [\n");
    await expect(loadCases(await load(bench))).rejects.toMatchObject({
      message: expect.stringContaining("invalid YAML"),
    });
  });
});

describe("lockedDependencyClosure", () => {
  it("lists the bench package's locked third-party closure with integrity, without workspace links", async () => {
    const bench = await setup();
    writeFileSync(
      join(bench.root, "pnpm-lock.yaml"),
      [
        "lockfileVersion: '9.0'",
        "importers:",
        "  bench/uppercase:",
        "    dependencies:",
        "      '@eval/registry': { specifier: 'workspace:^', version: 'link:../../packages/registry' }",
        "      semver: { specifier: ^7.0.0, version: 7.8.6 }",
        "packages:",
        "  semver@7.8.6: { resolution: { integrity: sha512-semver } }",
        "  lru@1.0.0: { resolution: { integrity: sha512-lru } }",
        "snapshots:",
        "  semver@7.8.6: { dependencies: { lru: 1.0.0 } }",
        "  lru@1.0.0: {}",
        "",
      ].join("\n"),
    );
    expect(lockedDependencyClosure(bench.benchPath)).toBe("lru@1.0.0 sha512-lru\nsemver@7.8.6 sha512-semver");
    expect(lockedDependencyClosure(bench.root)).toBe("");
    const before = (await load(bench)).rubricDigest;
    edit(join(bench.root, "pnpm-lock.yaml"), "sha512-lru", "sha512-lru2");
    expect((await load(bench)).rubricDigest).not.toBe(before);
  });
});
