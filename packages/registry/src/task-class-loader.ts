import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ignoreWarnings, isEvalError, type WarningSink } from "@eval/errors";
import { BenchDirMissing, TaskClassAlreadyRegistered, TaskClassInvalid, TaskClassNotFound } from "./errors.ts";
import { entryKind } from "./files.ts";
import { isTaskClassRegistration, RegistrationArgumentError } from "./registration.ts";
import { computeRubricDigest } from "./rubric-digest.ts";
import { firstLine, inspectTaskClass, versionedUrl, type DiscoveredRegistration } from "./task-class-inspection.ts";
import type { TaskClass } from "./task-class.ts";
import { defaultRegistry, type TaskClassRegistry } from "./task-class-registry.ts";

export interface LoadTaskClassOptions {
  /** The directory holding one sub-directory per task class (`bench/`). */
  readonly benchRoot: string;
  readonly registry?: TaskClassRegistry;
  readonly onWarning?: WarningSink;
  /** Loads a class whose cases/digests.yaml does not exist yet (what `bench sign` needs first). */
  readonly allowUnsigned?: boolean;
}

/** The bench root's sub-directories that hold a registration.ts, and those that do not. */
export async function listBenchDirs(benchRoot: string): Promise<{ registered: string[]; unregistered: string[] }> {
  const root = resolve(benchRoot);
  if ((await entryKind(root)) !== "directory") throw new BenchDirMissing(root, "bench root");
  const registered: string[] = [];
  const unregistered: string[] = [];
  for (const entry of (await readdir(root, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "node_modules") continue;
    ((await entryKind(join(root, entry.name, "registration.ts"))) === "file" ? registered : unregistered).push(
      entry.name,
    );
  }
  return { registered, unregistered };
}

/** Imports bench/<directory>/registration.ts (Node strips its types: no build step). */
export async function importRegistration(benchRoot: string, directory: string): Promise<DiscoveredRegistration> {
  const registrationPath = join(resolve(benchRoot), directory, "registration.ts");
  let module: { default?: unknown };
  try {
    module = (await import(versionedUrl(registrationPath))) as { default?: unknown };
  } catch (error) {
    const reason =
      error instanceof RegistrationArgumentError ? error.message : `cannot be imported: ${firstLine(error)}`;
    throw new TaskClassInvalid(registrationPath, reason);
  }
  if (!isTaskClassRegistration(module.default)) {
    throw new TaskClassInvalid(
      registrationPath,
      'its default export must be registerTaskClass("<name>", {...}) from @eval/registry',
    );
  }
  return { registrationPath, directory, registration: module.default };
}

/** Builds the TaskClass of one registration: the first problem `inspectTaskClass` finds is thrown. */
export async function buildTaskClass(
  benchRoot: string,
  discovered: DiscoveredRegistration,
  options: { allowUnsigned?: boolean | undefined } = {},
): Promise<TaskClass> {
  const { registration, registrationPath } = discovered;
  const inspection = await inspectTaskClass(benchRoot, discovered, options);
  const first = inspection.findings[0];
  if (first !== undefined) throw first.error;
  const benchPath = inspection.benchPath;
  const rubricDigest = await computeRubricDigest(benchPath);
  // `./program` in a declared command is the bench's own file: made absolute, since the rubric runs in a temp cwd.
  const declared = registration.options.rubric_command;
  const rubricCommand =
    declared === undefined
      ? null
      : Object.freeze(
          declared.map((arg, index) => (index === 0 && arg.startsWith("./") ? join(benchPath, arg.slice(2)) : arg)),
        );
  return Object.freeze({
    name: registration.name,
    benchPath,
    registrationPath,
    description: registration.options.description ?? null,
    minCasesForPromotion: registration.options.min_cases_for_promotion,
    minCases: registration.options.min_cases,
    scoreKind: registration.options.score_kind,
    ...(registration.options.min_trials === undefined ? {} : { minTrials: registration.options.min_trials }),
    breakdownKeys: inspection.breakdownKeys!,
    failureModeTaxonomy: inspection.failureModes!,
    rubricCommand,
    rubricPath: rubricCommand === null ? join(benchPath, "rubric.ts") : null,
    agent: registration.options.agent ?? null,
    ...(registration.options.limits === undefined ? {} : { limits: registration.options.limits }),
    rubricDigest,
  });
}

/** Imports every registration.ts under the bench root; a file that fails is reported, not fatal. */
async function discoverAll(benchRoot: string, onWarning: WarningSink): Promise<DiscoveredRegistration[]> {
  const { registered } = await listBenchDirs(benchRoot);
  const discovered: DiscoveredRegistration[] = [];
  for (const directory of registered) {
    try {
      discovered.push(await importRegistration(benchRoot, directory));
    } catch (error) {
      if (!isEvalError(error)) throw error;
      onWarning({ code: "bench.registration_invalid", message: error.message, details: { directory } });
    }
  }
  return discovered;
}

/**
 * Loads one task class: imports every bench/<dir>/registration.ts under `benchRoot`, picks the one
 * registering `name`, reads its sibling files and registers it. Throws TaskClassNotFound (exit 3),
 * BenchDirMissing (exit 4), TaskClassAlreadyRegistered when two registrations claim `name`,
 * TaskClassIncomplete / TaskClassInvalid naming the file at fault.
 */
export async function loadTaskClass(name: string, options: LoadTaskClassOptions): Promise<TaskClass> {
  const registry = options.registry ?? defaultRegistry;
  const onWarning = options.onWarning ?? ignoreWarnings;
  const root = resolve(options.benchRoot);
  // The registration in bench/<name>/ is imported directly, so its own errors surface as themselves.
  const own =
    (await entryKind(join(root, name, "registration.ts"))) === "file" ? await importRegistration(root, name) : null;
  const others = (await discoverAll(root, onWarning)).filter((found) => found.directory !== name);
  const claims = [...(own === null ? [] : [own]), ...others].filter((found) => found.registration.name === name);
  if (claims.length === 0) {
    const available = [
      ...new Set([...others, ...(own === null ? [] : [own])].map((found) => found.registration.name)),
    ].sort();
    throw new TaskClassNotFound(name, available, root);
  }
  if (claims.length > 1)
    throw new TaskClassAlreadyRegistered(name, claims[0]!.registrationPath, claims[1]!.registrationPath);
  return registry.register(await buildTaskClass(root, claims[0]!, { allowUnsigned: options.allowUnsigned }));
}

/** Loads every task class under `benchRoot` (for listings); the first broken one throws. */
export async function loadAllTaskClasses(options: LoadTaskClassOptions): Promise<readonly TaskClass[]> {
  const registry = options.registry ?? defaultRegistry;
  const root = resolve(options.benchRoot);
  const { registered } = await listBenchDirs(root);
  const discovered: DiscoveredRegistration[] = [];
  for (const directory of registered) discovered.push(await importRegistration(root, directory));
  const loaded: TaskClass[] = [];
  for (const found of discovered)
    loaded.push(registry.register(await buildTaskClass(root, found, { allowUnsigned: options.allowUnsigned })));
  return loaded.sort((a, b) => (a.name < b.name ? -1 : 1));
}
