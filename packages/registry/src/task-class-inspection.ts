import { statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { FailureModesFileSchema, formatIssues, safeParseWire, type FailureModesFile } from "@eval/models";
import { isEvalError, type EvalError } from "@eval/errors";
import { CORE_SCHEMA, load as loadYaml } from "js-yaml";
import { BenchDirMissing, TaskClassIncomplete, TaskClassInvalid } from "./errors.ts";
import { entryKind, readText } from "./files.ts";
import type { FenceAssertion } from "./findings.ts";
import type { TaskClassRegistration } from "./registration.ts";

// The task-class checks, written once. `inspectTaskClass` collects every problem (the fence reports
// them all); the loader's `buildTaskClass` throws the first. The same split as cases: `inspectCases`
// collects, `loadCases` throws.

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

/**
 * The file's URL, tagged with its size and mtime: a file edited since this process last imported it is
 * imported afresh instead of served from the module cache (a long-lived process sees the bench as it is).
 */
export function versionedUrl(path: string): string {
  const stat = statSync(path);
  return `${pathToFileURL(path).href}?v=${stat.size}-${Math.round(stat.mtimeMs)}`;
}

/** The first line of an error's message. */
export function firstLine(error: unknown): string {
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
  if (banned !== undefined)
    return `"${key}" contains "${banned}": breakdown keys must measure the work, not a model's self-assessment`;
  if (!BREAKDOWN_KEY_PATTERN.test(key) || key.length > 64)
    return `"${key}" must be snake_case (lowercase letters, digits, _; at most 64)`;
  return null;
}

/** The validated failure-mode taxonomy of one bench. */
export async function loadFailureModes(path: string): Promise<FailureModesFile> {
  let raw: unknown;
  try {
    // js-yaml (the YAML 1.2 core schema, as the yaml package reads it): no second YAML parser on a run's path.
    raw = loadYaml(await readText(path), { schema: CORE_SCHEMA });
  } catch (error) {
    throw new TaskClassInvalid(path, `is not valid YAML: ${firstLine(error)}`);
  }
  const parsed = safeParseWire(FailureModesFileSchema, raw ?? {});
  if (!parsed.success) throw new TaskClassInvalid(path, formatIssues(parsed.issues));
  for (const code of Object.keys(parsed.data)) {
    const reserved = RESERVED_CODE_PREFIXES.find((prefix) => code.startsWith(prefix));
    if (reserved !== undefined)
      throw new TaskClassInvalid(path, `${code}: codes starting with "${reserved}" are reserved for the harness`);
  }
  return parsed.data;
}

/** The sibling files a registration needs, relative to bench/<name>. */
export function requiredFiles(
  registration: TaskClassRegistration,
  options: { allowUnsigned?: boolean | undefined } = {},
): string[] {
  return [
    "package.json",
    "README.md",
    "registration.ts",
    ...(registration.options.rubric_command === undefined ? ["rubric.ts"] : []),
    // A declared rubric program inside the bench (`./rubric.py`) must be there too.
    ...(registration.options.rubric_command?.[0]?.startsWith("./")
      ? [registration.options.rubric_command[0].slice(2)]
      : []),
    "breakdown-keys.ts",
    "failure_modes.yaml",
    ...(options.allowUnsigned === true ? [] : ["cases/digests.yaml"]),
  ];
}

/** One problem with a task class's own files: which assertion, the exact path, the error a loader throws. */
export interface TaskClassFinding {
  readonly assertion: FenceAssertion | "registration";
  readonly path: string;
  readonly error: EvalError;
}

/** A static check of breakdown-keys.ts's source (the fence's: literal keys, read without running it). */
export type StaticKeysCheck = (
  source: string,
) => { readonly ok: true; readonly value: readonly unknown[] } | { readonly ok: false; readonly reason: string };

export interface TaskClassInspection {
  /** bench/<name>, where the class's files are. */
  readonly benchPath: string;
  /** False when the bench directory is missing or misplaced: nothing inside it was checked. */
  readonly located: boolean;
  /** Every problem found, in the order the loader meets them; empty when the class's files are sound. */
  readonly findings: readonly TaskClassFinding[];
  /** The validated breakdown keys and failure-mode taxonomy, when their files passed. */
  readonly breakdownKeys: ReadonlySet<string> | null;
  readonly failureModes: FailureModesFile | null;
}

const caught = async <T>(work: () => Promise<T>, onError: (error: EvalError) => void): Promise<T | null> => {
  try {
    return await work();
  } catch (error) {
    if (!isEvalError(error)) throw error;
    onError(error);
    return null;
  }
};

/**
 * Checks one registration's bench directory: where it is, the files it needs, its breakdown keys (the
 * `staticKeys` check first, when given, then by importing the module, which runs only when nothing
 * else is wrong) and its failure-mode taxonomy. Collects every problem; throws only on a non-EvalError.
 */
export async function inspectTaskClass(
  benchRoot: string,
  discovered: DiscoveredRegistration,
  options: { readonly allowUnsigned?: boolean | undefined; readonly staticKeys?: StaticKeysCheck } = {},
): Promise<TaskClassInspection> {
  const { registration, registrationPath } = discovered;
  const benchPath = join(resolve(benchRoot), registration.name);
  const findings: TaskClassFinding[] = [];
  const result = (
    located: boolean,
    breakdownKeys: ReadonlySet<string> | null = null,
    failureModes: FailureModesFile | null = null,
  ): TaskClassInspection => ({ benchPath, located, findings, breakdownKeys, failureModes });
  if ((await entryKind(benchPath)) !== "directory") {
    findings.push({
      assertion: "directory-contract",
      path: benchPath,
      error: new BenchDirMissing(
        benchPath,
        `task class "${registration.name}" is registered by ${registrationPath} but its bench directory is missing`,
      ),
    });
    return result(false);
  }
  if (discovered.directory !== registration.name) {
    findings.push({
      assertion: "registration",
      path: registrationPath,
      error: new TaskClassInvalid(
        registrationPath,
        `registers "${registration.name}" but sits in bench/${discovered.directory}/; the directory must be named after the task class`,
      ),
    });
    return result(false);
  }
  for (const file of requiredFiles(registration, options)) {
    const path = join(benchPath, file);
    if ((await entryKind(path)) !== "file")
      findings.push({ assertion: "directory-contract", path, error: new TaskClassIncomplete(registration.name, path) });
  }
  const keysPath = join(benchPath, "breakdown-keys.ts");
  const keysPresent = (await entryKind(keysPath)) === "file";
  if (keysPresent && options.staticKeys !== undefined)
    findings.push(...staticKeyFindings(keysPath, options.staticKeys(await readText(keysPath))));
  const modesPath = join(benchPath, "failure_modes.yaml");
  const failureModes =
    (await entryKind(modesPath)) === "file"
      ? await caught(
          () => loadFailureModes(modesPath),
          (error) => findings.push({ assertion: "failure-modes", path: modesPath, error }),
        )
      : null;
  // Importing runs the module: only once its file is known to be there and nothing else is wrong.
  const breakdownKeys =
    keysPresent && findings.length === 0
      ? await caught(
          () => loadBreakdownKeys(keysPath),
          (error) => findings.push({ assertion: "breakdown-keys", path: keysPath, error }),
        )
      : null;
  return result(true, breakdownKeys, failureModes);
}

function staticKeyFindings(keysPath: string, keys: ReturnType<StaticKeysCheck>): TaskClassFinding[] {
  const at = (reason: string): TaskClassFinding => ({
    assertion: "breakdown-keys",
    path: keysPath,
    error: new TaskClassInvalid(keysPath, reason),
  });
  if (!keys.ok) return [at(keys.reason)];
  return keys.value.flatMap((key, index) => {
    const problem =
      breakdownKeyProblem(key) ?? (keys.value.indexOf(key) !== index ? `"${String(key)}" appears twice` : null);
    return problem === null ? [] : [at(`BREAKDOWN_KEYS: ${problem}`)];
  });
}
