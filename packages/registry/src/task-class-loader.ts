import { statSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { FailureModesFileSchema, formatIssues, safeParseWire, type FailureModesFile } from "@eval/models";
import { ignoreWarnings, isEvalError, type WarningSink } from "@eval/errors";
import { parse as parseYaml } from "yaml";
import { BenchDirMissing, TaskClassAlreadyRegistered, TaskClassIncomplete, TaskClassInvalid, TaskClassNotFound } from "./errors.ts";
import { entryKind, readText } from "./files.ts";
import { isTaskClassRegistration, RegistrationArgumentError, type TaskClassRegistration } from "./registration.ts";
import { computeRubricDigest } from "./rubric-digest.ts";
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

/** Substrings no breakdown key may contain: scores must not smuggle a model's opinion of itself. */
export const BANNED_KEY_SUBSTRINGS = ["confidence", "llm", "self_reported", "model_says"] as const;
const BREAKDOWN_KEY_PATTERN = /^[a-z][a-z0-9_]*$/;
/** Failure-mode code prefixes the harness itself emits (sut.timeout, rubric.malformed_output...). */
const RESERVED_CODE_PREFIXES = ["sut.", "rubric."] as const;

export interface DiscoveredRegistration {
  readonly registrationPath: string;
  /** The directory name the registration.ts sits in. */
  readonly directory: string;
  readonly registration: TaskClassRegistration;
}

/** The bench root's sub-directories that hold a registration.ts, and those that do not. */
export async function listBenchDirs(benchRoot: string): Promise<{ registered: string[]; unregistered: string[] }> {
  const root = resolve(benchRoot);
  if ((await entryKind(root)) !== "directory") throw new BenchDirMissing(root, "bench root");
  const registered: string[] = [];
  const unregistered: string[] = [];
  for (const entry of (await readdir(root, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!entry.isDirectory() || entry.name.startsWith(".") || entry.name === "node_modules") continue;
    ((await entryKind(join(root, entry.name, "registration.ts"))) === "file" ? registered : unregistered).push(entry.name);
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
    const reason = error instanceof RegistrationArgumentError ? error.message : `cannot be imported: ${firstLine(error)}`;
    throw new TaskClassInvalid(registrationPath, reason);
  }
  if (!isTaskClassRegistration(module.default)) {
    throw new TaskClassInvalid(registrationPath, 'its default export must be registerTaskClass("<name>", {...}) from @eval/registry');
  }
  return { registrationPath, directory, registration: module.default };
}

/**
 * The file's URL, tagged with its size and mtime: a file edited since this process last imported it is
 * imported afresh instead of served from the module cache (a long-lived process sees the bench as it is).
 */
function versionedUrl(path: string): string {
  const stat = statSync(path);
  return `${pathToFileURL(path).href}?v=${stat.size}-${Math.round(stat.mtimeMs)}`;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split("\n")[0] ?? message;
}

/** Validated breakdown keys of one bench (imports breakdown-keys.ts). */
export async function loadBreakdownKeys(path: string): Promise<ReadonlySet<string>> {
  let module: { BREAKDOWN_KEYS?: unknown };
  try {
    module = (await import(versionedUrl(path))) as { BREAKDOWN_KEYS?: unknown };
  } catch (error) {
    throw new TaskClassInvalid(path, `cannot be imported: ${firstLine(error)}`);
  }
  const keys = module.BREAKDOWN_KEYS;
  if (!Array.isArray(keys)) throw new TaskClassInvalid(path, "must export const BREAKDOWN_KEYS = [...] as const");
  const seen = new Set<string>();
  for (const key of keys as unknown[]) {
    const problem = breakdownKeyProblem(key);
    if (problem !== null) throw new TaskClassInvalid(path, `BREAKDOWN_KEYS: ${problem}`);
    if (seen.has(key as string)) throw new TaskClassInvalid(path, `BREAKDOWN_KEYS: "${key as string}" appears twice`);
    seen.add(key as string);
  }
  return Object.freeze(seen);
}

/** Why `key` may not be a breakdown key, or null when it may. */
export function breakdownKeyProblem(key: unknown): string | null {
  if (typeof key !== "string") return `${JSON.stringify(key)} is not a string`;
  const banned = BANNED_KEY_SUBSTRINGS.find((word) => key.includes(word));
  if (banned !== undefined) return `"${key}" contains "${banned}": breakdown keys must measure the work, not a model's self-assessment`;
  if (!BREAKDOWN_KEY_PATTERN.test(key) || key.length > 64) return `"${key}" must be snake_case (lowercase letters, digits, _; at most 64)`;
  return null;
}

/** The validated failure-mode taxonomy of one bench. */
export async function loadFailureModes(path: string): Promise<FailureModesFile> {
  let raw: unknown;
  try {
    raw = parseYaml(await readText(path));
  } catch (error) {
    throw new TaskClassInvalid(path, `is not valid YAML: ${firstLine(error)}`);
  }
  const parsed = safeParseWire(FailureModesFileSchema, raw ?? {});
  if (!parsed.success) throw new TaskClassInvalid(path, formatIssues(parsed.issues));
  for (const code of Object.keys(parsed.data)) {
    const reserved = RESERVED_CODE_PREFIXES.find((prefix) => code.startsWith(prefix));
    if (reserved !== undefined) throw new TaskClassInvalid(path, `${code}: codes starting with "${reserved}" are reserved for the harness`);
  }
  return parsed.data;
}

/** The sibling files a registration needs, relative to bench/<name>. */
export function requiredFiles(registration: TaskClassRegistration, options: { allowUnsigned?: boolean | undefined } = {}): string[] {
  return [
    "package.json",
    "README.md",
    "registration.ts",
    ...(registration.options.rubric_command === undefined ? ["rubric.ts"] : []),
    // A declared rubric program inside the bench (`./rubric.py`) must be there too.
    ...(registration.options.rubric_command?.[0]?.startsWith("./") ? [registration.options.rubric_command[0].slice(2)] : []),
    "breakdown-keys.ts",
    "failure_modes.yaml",
    ...(options.allowUnsigned === true ? [] : ["cases/digests.yaml"]),
  ];
}

/** Builds the TaskClass of one registration: checks its directory and reads its sibling files. */
export async function buildTaskClass(benchRoot: string, discovered: DiscoveredRegistration, options: { allowUnsigned?: boolean | undefined } = {}): Promise<TaskClass> {
  const { registration, registrationPath } = discovered;
  const benchPath = join(resolve(benchRoot), registration.name);
  if ((await entryKind(benchPath)) !== "directory") {
    throw new BenchDirMissing(benchPath, `task class "${registration.name}" is registered by ${registrationPath} but its bench directory is missing`);
  }
  if (discovered.directory !== registration.name) {
    throw new TaskClassInvalid(registrationPath, `registers "${registration.name}" but sits in bench/${discovered.directory}/; the directory must be named after the task class`);
  }
  for (const file of requiredFiles(registration, options)) {
    if ((await entryKind(join(benchPath, file))) !== "file") throw new TaskClassIncomplete(registration.name, join(benchPath, file));
  }
  const [breakdownKeys, failureModeTaxonomy, rubricDigest] = await Promise.all([
    loadBreakdownKeys(join(benchPath, "breakdown-keys.ts")),
    loadFailureModes(join(benchPath, "failure_modes.yaml")),
    computeRubricDigest(benchPath),
  ]);
  // `./program` in a declared command is the bench's own file: made absolute, since the rubric runs in a temp cwd.
  const declared = registration.options.rubric_command;
  const rubricCommand =
    declared === undefined ? null : Object.freeze(declared.map((arg, index) => (index === 0 && arg.startsWith("./") ? join(benchPath, arg.slice(2)) : arg)));
  return Object.freeze({
    name: registration.name,
    benchPath,
    registrationPath,
    description: registration.options.description ?? null,
    minCasesForPromotion: registration.options.min_cases_for_promotion,
    minCases: registration.options.min_cases,
    scoreKind: registration.options.score_kind,
    ...(registration.options.min_trials === undefined ? {} : { minTrials: registration.options.min_trials }),
    breakdownKeys,
    failureModeTaxonomy,
    rubricCommand,
    rubricPath: rubricCommand === null ? join(benchPath, "rubric.ts") : null,
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
  const own = (await entryKind(join(root, name, "registration.ts"))) === "file" ? await importRegistration(root, name) : null;
  const others = (await discoverAll(root, onWarning)).filter((found) => found.directory !== name);
  const claims = [...(own === null ? [] : [own]), ...others].filter((found) => found.registration.name === name);
  if (claims.length === 0) {
    const available = [...new Set([...others, ...(own === null ? [] : [own])].map((found) => found.registration.name))].sort();
    throw new TaskClassNotFound(name, available, root);
  }
  if (claims.length > 1) throw new TaskClassAlreadyRegistered(name, claims[0]!.registrationPath, claims[1]!.registrationPath);
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
  for (const found of discovered) loaded.push(registry.register(await buildTaskClass(root, found, { allowUnsigned: options.allowUnsigned })));
  return loaded.sort((a, b) => (a.name < b.name ? -1 : 1));
}

export type { TaskClassRegistration };
