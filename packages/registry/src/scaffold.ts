import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { chmod, mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { TaskClassNameSchema } from "@eval/models";
import { EvalError } from "@eval/errors";
import { packageManagerOf, type PackageManagerCommands } from "./package-manager.ts";
import { signBench } from "./sign.ts";
import * as t from "./scaffold-templates.ts";
import type { RubricLanguage } from "./scaffold-templates.ts";

export type { RubricLanguage } from "./scaffold-templates.ts";

export interface ScaffoldOptions {
  /** The task class's name: the bench directory's name too. */
  readonly slug: string;
  /** Where evalgate.config.json goes (and the directory the file's relative paths are written for). */
  readonly projectDir: string;
  readonly benchRoot: string;
  readonly stateDir: string;
  readonly trustTiersPath: string;
  /** The config file already found (then none is written), or null. */
  readonly existingConfig: string | null;
  readonly rubric: RubricLanguage;
  /** Write .github/workflows/evalgate.yml (when absent). */
  readonly workflow: boolean;
}

export interface ScaffoldResult {
  readonly bench_path: string;
  /** Every file written, absolute, in the order written. */
  readonly created: readonly string[];
  /** Project files that existed and were left as they were (config, trust tiers, workflow). */
  readonly kept: readonly string[];
  /** True when the trust-tier file was kept: the new class still needs its line under current:. */
  readonly tier_line_needed: boolean;
  /** The packages the bench imports that are not installed where it can find them. */
  readonly missing_packages: readonly string[];
  /** The project's package manager, from its lockfile (npm without one). */
  readonly package_manager: PackageManager;
  /** How the project runs an installed binary: `npx evalgate`, `pnpm exec evalgate`, ... */
  readonly evalgate: string;
  /** The command that installs `missing_packages` (null when none is missing). */
  readonly install_command: string | null;
}

export type PackageManager = PackageManagerCommands["manager"];

const EXAMPLE_CASE = "example-1";
const BENCH_IMPORTS = ["@eval/registry", "@eval/rubric-protocol"] as const;

/**
 * Writes a new task class (and the project files it needs that are missing) and signs its cases, so that
 * `fence`, `bench check` and `run` accept it as written. Never overwrites: an existing task class
 * directory is refused before anything is written; existing project files are kept. On a failed write,
 * what this call created is removed again.
 */
export async function scaffoldTaskClass(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const parsed = TaskClassNameSchema.safeParse(options.slug);
  if (!parsed.success) {
    throw new EvalError(
      "EVAL_USAGE",
      `"${options.slug}" cannot name a task class: ${parsed.error.issues[0]?.message}`,
      {
        hint: "use lowercase letters, digits and dashes, e.g. --task-class my-task",
      },
    );
  }
  const benchPath = join(options.benchRoot, options.slug);
  if (existsSync(benchPath)) {
    throw new EvalError(
      "EVAL_INIT_CONFLICT",
      `${benchPath} already exists: evalgate init never overwrites a task class`,
      {
        hint: "pick another name with --task-class, or remove that directory first",
      },
    );
  }
  const manager = packageManagerOf(options.projectDir).commands;
  const files = plannedFiles(options, benchPath, `${manager.run} evalgate`);
  const created: string[] = [];
  const madeDirs: string[] = [];
  try {
    for (const [path, content] of files.write) {
      const made = await mkdir(dirname(path), { recursive: true });
      if (made !== undefined) madeDirs.push(made);
      await writeFile(path, content, { flag: "wx" });
      created.push(path);
    }
    if (options.rubric === "python") await chmod(join(benchPath, "rubric.py"), 0o755);
    const signed = await signBench({ benchPath, name: options.slug });
    created.push(signed.digests_path);
  } catch (error) {
    for (const path of [...created, ...madeDirs]) await rm(path, { recursive: true, force: true });
    throw error;
  }
  const missing = BENCH_IMPORTS.filter((name) => !installedFrom(benchPath, name));
  return {
    bench_path: benchPath,
    created,
    kept: files.kept,
    tier_line_needed: files.kept.includes(options.trustTiersPath),
    missing_packages: missing,
    package_manager: manager.manager,
    evalgate: `${manager.run} evalgate`,
    install_command: missing.length === 0 ? null : `${manager.add} ${missing.join(" ")}`,
  };
}

function plannedFiles(
  options: ScaffoldOptions,
  benchPath: string,
  evalgate: string,
): { write: Array<[string, string]>; kept: string[] } {
  const write: Array<[string, string]> = [];
  const kept: string[] = [];
  const project = (path: string, content: () => string) =>
    existsSync(path) ? kept.push(path) : write.push([path, content()]);
  if (options.existingConfig === null) {
    const rel = (path: string) => relative(options.projectDir, path) || ".";
    project(join(options.projectDir, "evalgate.config.json"), () =>
      t.configJson(rel(options.benchRoot), rel(options.stateDir), rel(options.trustTiersPath)),
    );
  } else kept.push(options.existingConfig);
  project(options.trustTiersPath, () => t.trustTiersYaml(options.slug));
  if (options.workflow)
    project(join(options.projectDir, ".github", "workflows", "evalgate.yml"), () =>
      t.workflowYaml(options.slug, evalgate),
    );
  write.push(...benchFiles(options, benchPath));
  return { write, kept };
}

function benchFiles(options: ScaffoldOptions, benchPath: string): Array<[string, string]> {
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const caseDir = join(benchPath, "cases", EXAMPLE_CASE);
  return [
    [join(benchPath, "package.json"), t.benchManifest(options.slug)],
    [join(benchPath, "README.md"), t.benchReadme(options.slug)],
    [join(benchPath, "registration.ts"), t.registrationSource(options.slug, options.rubric)],
    options.rubric === "python"
      ? [join(benchPath, "rubric.py"), t.RUBRIC_PY]
      : [join(benchPath, "rubric.ts"), t.RUBRIC_TS],
    [join(benchPath, "breakdown-keys.ts"), t.BREAKDOWN_KEYS_SOURCE],
    [join(benchPath, "failure_modes.yaml"), t.FAILURE_MODES_YAML],
    [join(benchPath, "near-misses.yaml"), t.NEAR_MISSES_YAML],
    [join(caseDir, "case.toml"), t.caseToml(options.slug, EXAMPLE_CASE, randomBytes(16).toString("hex"), now)],
    [join(caseDir, "input", "question.txt"), "What is 6 * 7?\n"],
    [join(caseDir, "expected", "answer.txt"), "42\n"],
    [join(caseDir, "controls", "controls.json"), t.CASE_CONTROLS],
    [join(caseDir, "controls", "reference", "answer.txt"), "42\n"],
    [join(caseDir, "controls", "wrong-answer", "answer.txt"), "41\n"],
  ];
}

/** Whether `name` is installed where Node looks for it from `fromDir` (its node_modules, then each parent's). */
function installedFrom(fromDir: string, name: string): boolean {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", name, "package.json"))) return true;
    if (dirname(dir) === dir) return false;
  }
}
