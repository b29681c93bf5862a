// evalgate init's scaffold: real files in a temp project, checked by the real fence and loader.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runFence } from "./fence.ts";
import { scaffoldTaskClass, type ScaffoldOptions } from "./scaffold.ts";
import { loadTaskClass } from "./task-class-loader.ts";
import { TaskClassRegistry } from "./task-class-registry.ts";

const packagesDir = join(import.meta.dirname, "..", "..");
let project: string;

function options(overrides: Partial<ScaffoldOptions> = {}): ScaffoldOptions {
  return {
    slug: "answers",
    projectDir: project,
    benchRoot: join(project, "bench"),
    stateDir: join(project, ".evalgate"),
    trustTiersPath: join(project, "trust-tiers.yaml"),
    existingConfig: null,
    rubric: "typescript",
    workflow: true,
    ...overrides,
  };
}

function linkEvalPackages(): void {
  mkdirSync(join(project, "node_modules", "@eval"), { recursive: true });
  for (const name of ["registry", "models", "errors", "rubric-protocol"])
    symlinkSync(join(packagesDir, name), join(project, "node_modules", "@eval", name));
}

function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" }).sort();
}

beforeEach(() => {
  project = mkdtempSync(join(tmpdir(), "evalgate-scaffold-"));
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "mine", private: true }));
});
afterEach(() => rmSync(project, { recursive: true, force: true }));

describe("scaffoldTaskClass", () => {
  it("writes a task class the fence and the loader accept as written, with its config, tiers and workflow", async () => {
    linkEvalPackages();
    const result = await scaffoldTaskClass(options());
    expect(result.created.map((path) => path.slice(project.length + 1))).toEqual([
      "evalgate.config.json",
      "trust-tiers.yaml",
      ".github/workflows/evalgate.yml",
      "bench/answers/package.json",
      "bench/answers/README.md",
      "bench/answers/registration.ts",
      "bench/answers/rubric.ts",
      "bench/answers/breakdown-keys.ts",
      "bench/answers/failure_modes.yaml",
      "bench/answers/near-misses.yaml",
      "bench/answers/cases/example-1/case.toml",
      "bench/answers/cases/example-1/input/question.txt",
      "bench/answers/cases/example-1/expected/answer.txt",
      "bench/answers/cases/example-1/controls/controls.json",
      "bench/answers/cases/example-1/controls/reference/answer.txt",
      "bench/answers/cases/example-1/controls/wrong-answer/answer.txt",
      "bench/answers/cases/digests.yaml",
    ]);
    expect(result).toMatchObject({
      kept: [],
      tier_line_needed: false,
      missing_packages: [],
      package_manager: "npm",
      evalgate: "npx evalgate",
      install_command: null,
    });
    expect(JSON.parse(readFileSync(join(project, "evalgate.config.json"), "utf8"))).toMatchObject({
      bench_root: "bench",
      state_dir: ".evalgate",
      trust_tiers: "trust-tiers.yaml",
    });
    const fence = await runFence({ benchRoot: join(project, "bench"), trustTiers: null });
    expect(fence.failures).toEqual([]);
    expect(fence.task_classes).toEqual([expect.objectContaining({ name: "answers", cases: 1, held_out: 1 })]);
    const loaded = await loadTaskClass("answers", {
      benchRoot: join(project, "bench"),
      registry: new TaskClassRegistry(),
    });
    expect(loaded).toMatchObject({ scoreKind: "binary", minCasesForPromotion: {}, rubricCommand: null });
  });

  it("writes the tiers of this repository's docs/trust-tiers.yaml, with the new class at the base", async () => {
    await scaffoldTaskClass(options());
    const ours = parse(readFileSync(join(packagesDir, "..", "docs", "trust-tiers.yaml"), "utf8")) as {
      tiers: unknown;
      schema_version: string;
    };
    const written = parse(readFileSync(join(project, "trust-tiers.yaml"), "utf8")) as {
      tiers: unknown;
      schema_version: string;
      current: unknown;
    };
    expect(written.tiers).toEqual(ours.tiers);
    expect(written.schema_version).toBe(ours.schema_version);
    expect(written.current).toEqual({ answers: "untrusted" });
  });

  it("a Python rubric: rubric.py executable, named by rubric_command, no rubric.ts", async () => {
    linkEvalPackages();
    await scaffoldTaskClass(options({ rubric: "python", workflow: false }));
    const bench = join(project, "bench", "answers");
    expect(statSync(join(bench, "rubric.py")).mode & 0o111).toBe(0o111);
    expect(existsSync(join(bench, "rubric.ts"))).toBe(false);
    expect(readFileSync(join(bench, "registration.ts"), "utf8")).toContain('rubric_command: ["./rubric.py"]');
    expect(existsSync(join(project, ".github"))).toBe(false);
    expect((await runFence({ benchRoot: join(project, "bench"), trustTiers: null })).failures).toEqual([]);
  });

  it("refuses an existing task class directory before writing anything", async () => {
    mkdirSync(join(project, "bench", "answers"), { recursive: true });
    writeFileSync(join(project, "bench", "answers", "rubric.ts"), "mine");
    const before = tree(project);
    await expect(scaffoldTaskClass(options())).rejects.toMatchObject({
      code: "EVAL_INIT_CONFLICT",
      message: expect.stringContaining("never overwrites"),
    });
    expect(tree(project)).toEqual(before);
    expect(readFileSync(join(project, "bench", "answers", "rubric.ts"), "utf8")).toBe("mine");
  });

  it("keeps existing project files, says the tier line is needed, and names the install command of the project's package manager", async () => {
    writeFileSync(join(project, "pnpm-lock.yaml"), "lockfileVersion: '9.0'\n");
    writeFileSync(join(project, "trust-tiers.yaml"), "mine\n");
    const config = join(project, "evalgate.config.json");
    writeFileSync(config, "{}\n");
    const result = await scaffoldTaskClass(options({ existingConfig: config }));
    expect(result.kept).toEqual([config, join(project, "trust-tiers.yaml")]);
    expect(readFileSync(join(project, "trust-tiers.yaml"), "utf8")).toBe("mine\n");
    expect(readFileSync(config, "utf8")).toBe("{}\n");
    expect(result).toMatchObject({
      tier_line_needed: true,
      package_manager: "pnpm",
      evalgate: "pnpm exec evalgate",
      missing_packages: ["@eval/registry", "@eval/rubric-protocol"],
      install_command: "pnpm add -D @eval/registry @eval/rubric-protocol",
    });
    expect(readFileSync(join(project, ".github", "workflows", "evalgate.yml"), "utf8")).toContain(
      "pnpm exec evalgate bench check --task-class answers",
    );
  });

  it.each([
    ["yarn.lock", "yarn add -D", "yarn evalgate"],
    ["bun.lock", "bun add -d", "bunx evalgate"],
    ["package-lock.json", "npm install -D", "npx evalgate"],
  ])("finds the package manager from %s", async (lockfile, add, evalgate) => {
    writeFileSync(join(project, lockfile), "");
    const result = await scaffoldTaskClass(options());
    expect(result.install_command).toBe(`${add} @eval/registry @eval/rubric-protocol`);
    expect(result.evalgate).toBe(evalgate);
  });

  it("rejects a name that cannot be a task class, writing nothing", async () => {
    const before = tree(project);
    await expect(scaffoldTaskClass(options({ slug: "Not A Slug" }))).rejects.toMatchObject({ code: "EVAL_USAGE" });
    expect(tree(project)).toEqual(before);
  });

  it("removes what it wrote when a write fails part way", async () => {
    writeFileSync(join(project, "bench"), "a file where the bench root should be");
    const before = tree(project);
    await expect(scaffoldTaskClass(options())).rejects.toThrow();
    expect(tree(project)).toEqual(before);
    expect(existsSync(join(project, "evalgate.config.json"))).toBe(false);
  });
});
