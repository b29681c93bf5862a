import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { parseWire, TrustTiersFileSchema } from "@eval/models";
import { afterEach, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { runFence, type FenceReport } from "./fence.ts";
import { makeFixtureBench, type FixtureBench } from "./fixture-bench.test-helpers.ts";
import { signBench } from "./sign.ts";

let fixture: FixtureBench | undefined;
afterEach(() => fixture?.cleanup());

function edit(path: string, from: string, to: string): void {
  const text = readFileSync(path, "utf8");
  if (!text.includes(from)) throw new Error(`fixture edit: ${from} not in ${path}`);
  writeFileSync(path, text.replace(from, to));
}

async function fenceWith(plant: (bench: FixtureBench) => void): Promise<FenceReport> {
  fixture = await makeFixtureBench();
  plant(fixture);
  return runFence({ benchRoot: fixture.benchRoot, now: new Date("2026-11-22T00:00:00Z") });
}

describe("runFence", () => {
  it("passes a bench that meets the contract and summarises it", async () => {
    const report = await fenceWith(() => {});
    expect(report.failures).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.task_classes).toEqual([
      {
        name: "uppercase",
        bench_path: fixture!.benchPath,
        cases: 6,
        held_out: 5,
        min_cases: 3,
        min_cases_for_promotion: {},
      },
    ]);
    expect(report.unregistered_dirs).toEqual([]);
  });

  // The planted defects of the issue: each must fail, naming the exact path.
  it.each<[string, (bench: FixtureBench) => void, string, (bench: FixtureBench) => string, RegExp]>([
    [
      "a flipped byte in expected/",
      (bench) => {
        const path = join(bench.benchPath, "cases", "case-03", "expected", "text.txt");
        const bytes = readFileSync(path);
        bytes[1] = bytes[1]! ^ 0x20;
        writeFileSync(path, bytes);
      },
      "digests",
      (bench) => join(bench.benchPath, "cases", "case-03"),
      /expected\/text\.txt \(changed\)/,
    ],
    [
      "a symlink to /etc/passwd inside input/",
      (bench) => symlinkSync("/etc/passwd", join(bench.benchPath, "cases", "case-02", "input", "passwd")),
      "case-files",
      (bench) => join(bench.benchPath, "cases", "case-02", "input", "passwd"),
      /symlink/,
    ],
    [
      "a non-literal task-class name",
      (bench) =>
        edit(join(bench.benchPath, "registration.ts"), 'registerTaskClass("uppercase",', "registerTaskClass(NAME,"),
      "literal-name",
      (bench) => join(bench.benchPath, "registration.ts"),
      /first argument of registerTaskClass must be a string literal/,
    ],
    [
      "a breakdown key llm_confidence",
      (bench) =>
        edit(join(bench.benchPath, "breakdown-keys.ts"), '"length_kept",', '"length_kept",\n  "llm_confidence",'),
      "breakdown-keys",
      (bench) => join(bench.benchPath, "breakdown-keys.ts"),
      /"llm_confidence" contains/,
    ],
    [
      "a computed breakdown key",
      (bench) =>
        edit(join(bench.benchPath, "breakdown-keys.ts"), '"length_kept",', '"length_kept",\n  ["ll", "m"].join(""),'),
      "breakdown-keys",
      (bench) => join(bench.benchPath, "breakdown-keys.ts"),
      /must be a string literal/,
    ],
    [
      "a severity fatal",
      (bench) => edit(join(bench.benchPath, "failure_modes.yaml"), "severity: warn", "severity: fatal"),
      "failure-modes",
      (bench) => join(bench.benchPath, "failure_modes.yaml"),
      /length_changed\.severity/,
    ],
    [
      "an empty failure-mode description",
      (bench) =>
        edit(join(bench.benchPath, "failure_modes.yaml"), "description: The text changed length.", 'description: "  "'),
      "failure-modes",
      (bench) => join(bench.benchPath, "failure_modes.yaml"),
      /length_changed\.description/,
    ],
    [
      "a silver-eligible class with 3 held-out cases",
      (bench) => {
        edit(
          join(bench.benchPath, "registration.ts"),
          "min_cases_for_promotion: {}",
          "min_cases_for_promotion: { silver: 5 }",
        );
        for (const id of ["case-04", "case-05"])
          edit(
            join(bench.benchPath, "cases", id, "case.toml"),
            'curation_class = "held-out"',
            'curation_class = "rag-corpus-derived"',
          );
      },
      "curation-split",
      (bench) => join(bench.benchPath, "cases"),
      /declares silver in min_cases_for_promotion but has 6 cases \(need >= 10\) and 3 held-out cases \(need >= 5\): grow the bench or drop the tier/,
    ],
    [
      "a tier that asks for more passes than the bench has cases",
      (bench) =>
        edit(
          join(bench.benchPath, "registration.ts"),
          "min_cases_for_promotion: {}",
          "min_cases_for_promotion: { bronze: 12 }",
        ),
      "curation-split",
      (bench) => join(bench.benchPath, "cases"),
      /declares bronze in min_cases_for_promotion but has 6 cases \(need >= 10\) and fewer cases \(6\) than the 12 passes it asks for/,
    ],
    [
      "a duplicated case id",
      (bench) =>
        edit(join(bench.benchPath, "cases", "case-05", "case.toml"), 'case_id = "case-05"', 'case_id = "case-04"'),
      "case-ids",
      (bench) => join(bench.benchPath, "cases", "case-04", "case.toml"),
      /case_id "case-04" is claimed by .*case-04\/case\.toml and .*case-05\/case\.toml/,
    ],
    [
      "fewer cases than min_cases",
      (bench) => edit(join(bench.benchPath, "registration.ts"), "min_cases: 3,", "min_cases: 7,"),
      "min-cases",
      (bench) => join(bench.benchPath, "cases"),
      /has 6 cases; its registration asks for at least 7/,
    ],
    [
      "a missing failure_modes.yaml",
      (bench) => renameSync(join(bench.benchPath, "failure_modes.yaml"), join(bench.root, "failure_modes.yaml")),
      "directory-contract",
      (bench) => join(bench.benchPath, "failure_modes.yaml"),
      /missing .*failure_modes\.yaml/,
    ],
  ])("fails on %s, naming the path", async (_label, plant, assertion, path, message) => {
    const report = await fenceWith(plant);
    expect(report.ok).toBe(false);
    const match = report.failures.find((failure) => failure.assertion === assertion && message.test(failure.message));
    expect(match, JSON.stringify(report.failures)).toBeDefined();
    expect(match!.path).toBe(path(fixture!));
    expect(match!.message).toMatch(message);
  });

  it("refuses two cases with the same cache-relevant content (files and canary pin), even when their digests are re-signed", async () => {
    const report = await fenceWith((bench) => {
      const cases = join(bench.benchPath, "cases");
      for (const part of ["input", "expected"]) {
        rmSync(join(cases, "case-02", part), { recursive: true });
        cpSync(join(cases, "case-01", part), join(cases, "case-02", part), { recursive: true });
      }
      edit(
        join(cases, "case-02", "case.toml"),
        'cassette_canary_pin = "0123456789abcdef0123456789abcd02"',
        'cassette_canary_pin = "0123456789abcdef0123456789abcd01"',
      );
    });
    expect(report.failures.map((f) => f.assertion)).toEqual(["digests"]); // case-02's files changed: re-sign, as an author would
    await signBench({ benchPath: fixture!.benchPath });
    const resigned = await runFence({ benchRoot: fixture!.benchRoot, now: new Date("2026-11-22T00:00:00Z") });
    expect(resigned.ok).toBe(false);
    expect(resigned.failures).toEqual([
      expect.objectContaining({
        assertion: "case-ids",
        code: "EVAL_CASE_ID_COLLISION",
        path: join(fixture!.benchPath, "cases", "case-01"),
        message: expect.stringMatching(/cases case-01 and case-02 have identical files and canary pin/),
      }),
    ]);
  });

  it("reports every failure, not only the first", async () => {
    const report = await fenceWith((bench) => {
      edit(join(bench.benchPath, "cases", "case-06", "case.toml"), 'difficulty = "easy"', 'difficulty = "trivial"');
      writeFileSync(join(bench.benchPath, "cases", "case-01", "input", "text.txt"), "tampered");
      symlinkSync("/etc/passwd", join(bench.benchPath, "cases", "case-02", "input", "passwd"));
    });
    expect(report.failures.map((failure) => failure.assertion).sort()).toEqual(["case-files", "case-files", "digests"]);
  });

  it("a registered class without its bench directory is a directory-contract failure with EVAL_BENCH_DIR_MISSING", async () => {
    const report = await fenceWith((bench) => {
      mkdirSync(join(bench.benchRoot, "agentic-recipe-authoring"));
      writeFileSync(
        join(bench.benchRoot, "agentic-recipe-authoring", "registration.ts"),
        'import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass("agentic-recipes", { min_cases_for_promotion: {} });\n',
      );
    });
    expect(report.failures).toContainEqual(
      expect.objectContaining({
        assertion: "directory-contract",
        code: "EVAL_BENCH_DIR_MISSING",
        path: join(fixture!.benchRoot, "agentic-recipes"),
      }),
    );
  });

  it("flags a registration in a directory named otherwise, a duplicate registration, and a broken import", async () => {
    const report = await fenceWith((bench) => {
      mkdirSync(join(bench.benchRoot, "copy"));
      writeFileSync(
        join(bench.benchRoot, "copy", "registration.ts"),
        readFileSync(join(bench.benchPath, "registration.ts")),
      );
      mkdirSync(join(bench.benchRoot, "broken"));
      writeFileSync(
        join(bench.benchRoot, "broken", "registration.ts"),
        'import { registerTaskClass } from "@eval/registry";\nimport "./nowhere.ts";\nexport default registerTaskClass("broken", { min_cases_for_promotion: {} });\n',
      );
      mkdirSync(join(bench.benchRoot, "renamed"));
      writeFileSync(
        join(bench.benchRoot, "renamed", "registration.ts"),
        'import { registerTaskClass } from "@eval/registry";\nexport default registerTaskClass("uppercase-two", { min_cases_for_promotion: {} });\n',
      );
      mkdirSync(join(bench.benchRoot, "uppercase-two"));
    });
    const byPath = (dir: string) =>
      report.failures.filter((failure) => failure.path.startsWith(join(fixture!.benchRoot, dir)));
    expect(byPath("copy")[0]).toMatchObject({ assertion: "registration", code: "EVAL_TASK_CLASS_ALREADY_REGISTERED" });
    expect(byPath("broken")[0]).toMatchObject({
      assertion: "registration",
      code: "EVAL_TASK_CLASS_INVALID",
      message: expect.stringContaining("cannot be imported"),
    });
    expect(byPath("renamed")[0]).toMatchObject({
      assertion: "registration",
      message: expect.stringContaining("the directory must be named after the task class"),
    });
  });

  it("reports a missing digests.yaml once, and still checks the cases", async () => {
    const report = await fenceWith((bench) => {
      renameSync(join(bench.benchPath, "cases", "digests.yaml"), join(bench.root, "digests.yaml"));
      symlinkSync("/etc/passwd", join(bench.benchPath, "cases", "case-01", "input", "passwd"));
    });
    expect(report.failures.map((failure) => failure.path)).toEqual([
      join(fixture!.benchPath, "cases", "digests.yaml"),
      join(fixture!.benchPath, "cases", "case-01", "input", "passwd"),
    ]);
  });

  it("lists bench directories without a registration.ts without failing on them", async () => {
    const report = await fenceWith((bench) => mkdirSync(join(bench.benchRoot, "half-built")));
    expect(report.ok).toBe(true);
    expect(report.unregistered_dirs).toEqual([join(fixture!.benchRoot, "half-built")]);
  });

  it("takes held-out minimums and tier names from the trust tiers it is given", async () => {
    fixture = await makeFixtureBench();
    edit(
      join(fixture.benchPath, "registration.ts"),
      "min_cases_for_promotion: {}",
      "min_cases_for_promotion: { bronze: 2, silver: 5 }",
    );
    const tiers = (silverHeldOut: number) =>
      parseWire(TrustTiersFileSchema, {
        schema_version: "evalgate.trust_tiers.v1",
        calibrated: false,
        tiers: [
          { name: "bronze", threshold: 0.5, min_cases: 0, min_held_out: 0 },
          { name: "silver", threshold: 0.8, min_cases: 0, min_held_out: silverHeldOut },
        ],
        current: {},
      });
    let report = await runFence({ benchRoot: fixture.benchRoot, trustTiers: tiers(6) });
    expect(report.failures).toEqual([
      expect.objectContaining({ assertion: "curation-split", message: expect.stringContaining("need >= 6") }),
    ]);
    expect((await runFence({ benchRoot: fixture.benchRoot, trustTiers: tiers(5) })).ok).toBe(true);
    // Edited after this process imported it: the fence sees the edit.
    edit(join(fixture.benchPath, "registration.ts"), "silver: 5", "gold: 5");
    report = await runFence({ benchRoot: fixture.benchRoot, trustTiers: tiers(5) });
    expect(report.failures).toEqual([
      expect.objectContaining({ assertion: "curation-split", message: expect.stringContaining('names tier "gold"') }),
    ]);
    // Without trust tiers every tier gets the seed's floor (10 cases, 5 held out), which this 6-case bench misses.
    report = await runFence({ benchRoot: fixture.benchRoot, trustTiers: null });
    expect(report.ok).toBe(false);
    expect(report.failures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          assertion: "curation-split",
          message: expect.stringContaining("has 6 cases (need >= 10)"),
        }),
      ]),
    );
  });

  it("throws BenchDirMissing when the bench root itself is missing", async () => {
    await expect(runFence({ benchRoot: "/nonexistent/bench" })).rejects.toMatchObject({
      code: "EVAL_BENCH_DIR_MISSING",
    });
  });
});

describe("the fence over the repo's own bench/", () => {
  const repoBench = join(import.meta.dirname, "..", "..", "..", "bench");
  const trustTiers = parseWire(
    TrustTiersFileSchema,
    parseYaml(readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "trust-tiers.yaml"), "utf8")),
  );

  it("passes, saw every bench/* directory with a registration.ts, and stays fast", async () => {
    const expected = readdirSync(repoBench, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(repoBench, entry.name, "registration.ts")))
      .map((entry) => join(repoBench, entry.name))
      .sort();
    const report = await runFence({ benchRoot: repoBench, trustTiers });
    expect(report.failures).toEqual([]);
    expect(report.task_classes.map((taskClass) => taskClass.bench_path).sort()).toEqual(expected);
    expect(report.duration_ms).toBeLessThan(2000);
  });
});
