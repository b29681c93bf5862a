import { readdir } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  BenchCaseSchema,
  CaseTomlSchema,
  deepFreeze,
  DigestsFileSchema,
  formatIssues,
  safeParseWire,
  type BenchCase,
  type CaseToml,
  type DigestsFile,
} from "@eval/models";
import { ignoreWarnings, isEvalError, type WarningSink } from "@eval/errors";
import { parse as parseToml, TomlDate, TomlError } from "smol-toml";
import { FAILSAFE_SCHEMA, load as loadYaml } from "js-yaml";
import type { FileDigestCache } from "@eval/hashing";
import { checkpointedDigest, checkpointedFile } from "./case-tree-stamp.ts";
import { CASE_DIGEST_SERIALIZATION, digestCase, type DirectoryDigest } from "./digest.ts";
import {
  CaseContentCollision,
  CaseDigestMismatch,
  CaseIdCollision,
  CaseLoadFailed,
  CaseUnsafePath,
  TaskClassIncomplete,
} from "./errors.ts";
import { entryKind, readText } from "./files.ts";
import { finding, type Finding } from "./findings.ts";
import type { TaskClass } from "./task-class.ts";

/** A case whose last_validated_at is older than this is loaded with a `case.stale` warning. */
export const STALE_AFTER_DAYS = 90;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface LoadCasesOptions {
  /** Keeps only the cases it accepts; only those are digest-verified (collisions are checked for all). */
  readonly filter?: (benchCase: BenchCase) => boolean;
  readonly onWarning?: WarningSink;
  /** The clock staleness is judged against (tests). */
  readonly now?: Date;
  /**
   * False skips the digest comparison: for listings a curator reads before `bench sign`, never
   * before a run. Default true.
   */
  readonly verify?: boolean;
  /**
   * Case-tree digests kept between runs (case-tree-stamp.ts), which the caller must seal; absent: every
   * case tree is listed and read.
   */
  readonly caseTrees?: FileDigestCache;
}

/** Names what a checkpoint entry's digest is: a stamp made under another definition is never reused. */
const CASE_DIGEST_DEFINITION = `${CASE_DIGEST_SERIALIZATION}:every file`;

function caseTreeDigest(
  casePath: string,
  caseTrees: FileDigestCache | undefined,
): DirectoryDigest & { reused: boolean } {
  if (caseTrees === undefined) return { ...digestCase(casePath), reused: false };
  return checkpointedDigest(casePath, { checkpoint: caseTrees, definition: CASE_DIGEST_DEFINITION });
}

/** What case loading needs of a task class. */
export type CaseOwner = Pick<TaskClass, "name" | "benchPath">;

/** A case directory as found on disk, before digest verification. */
interface FoundCase {
  readonly directory: string;
  readonly casePath: string;
  readonly toml: CaseToml | null;
}

/** The digest the loader computes for each case, and what digests.yaml said (for sign and the fence). */
export interface CaseInspection {
  readonly cases: readonly BenchCase[];
  readonly findings: readonly Finding[];
  /** Case directories found (sorted), with their case.toml when it parsed. */
  readonly found: readonly {
    readonly directory: string;
    readonly casePath: string;
    readonly curationClass: string | null;
  }[];
}

/** TOML offset date-times become RFC 3339 strings; local ones stay recognisable so the schema rejects them. */
function tomlToJson(value: unknown): unknown {
  if (value instanceof TomlDate)
    return value.isLocal() ? `${value.toISOString()} (local time: add an offset such as Z)` : value.toISOString();
  if (Array.isArray(value)) return value.map(tomlToJson);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, tomlToJson(inner)]));
  return value;
}

const DATE_FIELDS = ["added_at", "last_validated_at"] as const;

/** The authored calendar date of a top-level `field = YYYY-MM-DD...` line, as written (before any rollover). */
function authoredDate(text: string, field: string): string | null {
  const match = new RegExp(`^\\s*["']?${field}["']?\\s*=\\s*(\\d{4}-\\d{2}-\\d{2})`, "m").exec(text);
  return match ? match[1]! : null;
}

function isCalendarDate(date: string): boolean {
  const [year, month, day] = date.split("-").map(Number) as [number, number, number];
  const parsed = new Date(Date.UTC(year, month - 1, day));
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day;
}

/**
 * The date fields must be TOML offset date-times naming a real calendar day. The TOML parser rolls
 * `2026-02-30` over to March 2, so the day is checked against the text as authored.
 */
function firstBadDate(document: Record<string, unknown>, text: string): { field: string; reason: string } | null {
  const example = new Date().toISOString().slice(0, 19) + "Z";
  for (const field of DATE_FIELDS) {
    if (!(field in document)) continue;
    const value = document[field];
    const fix = `write it as ${field} = ${example} (an unquoted TOML date-time with an offset)`;
    let problem: string | null = null;
    if (!(value instanceof TomlDate)) problem = `a ${typeof value}, not a TOML date-time`;
    else if (value.isDate()) problem = "a local date has no time and offset";
    else if (value.isTime()) problem = "a time of day has no date and offset";
    else if (value.isLocal()) problem = "a local date-time has no offset";
    else {
      const date = authoredDate(text, field);
      if (date !== null && !isCalendarDate(date)) problem = `${date} is not a calendar date`;
    }
    if (problem !== null) return { field, reason: `${problem}; ${fix}` };
  }
  return null;
}

const REGISTRY_VERSION = (createRequire(import.meta.url)("../package.json") as { version: string }).version;

/**
 * Names what a checkpointed file holds (the parser and schema of this release): an entry another release
 * made is never reused, since its schema may have accepted what this one refuses.
 */
const CASE_TOML_DEFINITION = `case.toml:smol-toml+CaseTomlSchema:${REGISTRY_VERSION}`;
const DIGESTS_FILE_DEFINITION = `digests.yaml:js-yaml-failsafe+DigestsFileSchema:${REGISTRY_VERSION}`;

/** `read()`'s validated result, from the checkpoint while the file is unchanged (case-tree-stamp.ts). */
async function validatedFile<T>(
  path: string,
  checkpoint: FileDigestCache | undefined,
  definition: string,
  read: () => Promise<T | null>,
): Promise<T | null> {
  if (checkpoint === undefined) return read();
  const { value, reused } = await checkpointedFile(path, { checkpoint, definition }, read);
  return reused ? (deepFreeze(value) as T | null) : value;
}

/** case.toml read, parsed and validated against CaseTomlSchema; null (with a finding) when it is not valid. */
async function parseCaseToml(tomlPath: string, findings: Finding[]): Promise<CaseToml | null> {
  let raw: unknown;
  try {
    const text = await readText(tomlPath);
    const document = parseToml(text);
    const badDate = firstBadDate(document, text);
    if (badDate) {
      findings.push(finding("case-files", tomlPath, new CaseLoadFailed(tomlPath, badDate.field, badDate.reason)));
      return null;
    }
    raw = tomlToJson(document);
  } catch (error) {
    const reason =
      error instanceof TomlError
        ? `invalid TOML at line ${error.line}, column ${error.column}: ${error.message.split("\n")[0]}`
        : String(error);
    findings.push(finding("case-files", tomlPath, new CaseLoadFailed(tomlPath, null, reason)));
    return null;
  }
  const parsed = safeParseWire(CaseTomlSchema, raw);
  if (!parsed.success) {
    const first = parsed.issues[0]!;
    findings.push(
      finding("case-files", tomlPath, new CaseLoadFailed(tomlPath, first.path, formatIssues(parsed.issues))),
    );
    return null;
  }
  return parsed.data;
}

async function readCaseToml(
  taskClass: CaseOwner,
  directory: string,
  casePath: string,
  findings: Finding[],
  checkpoint: FileDigestCache | undefined,
): Promise<CaseToml | null> {
  const tomlPath = join(casePath, "case.toml");
  const kind = await entryKind(tomlPath);
  if (kind !== "file") {
    const error =
      kind === "missing"
        ? new CaseLoadFailed(tomlPath, null, "missing; every case directory needs a case.toml")
        : new CaseUnsafePath(tomlPath, "must be a regular file");
    findings.push(finding("case-files", tomlPath, error));
    return null;
  }
  const toml = await validatedFile(tomlPath, checkpoint, CASE_TOML_DEFINITION, () => parseCaseToml(tomlPath, findings));
  if (toml === null) return null;
  if (toml.case_id !== directory) {
    findings.push(
      finding(
        "case-ids",
        tomlPath,
        new CaseLoadFailed(tomlPath, "case_id", `"${toml.case_id}" must equal its directory name "${directory}"`),
      ),
    );
  }
  if (toml.task_class !== taskClass.name) {
    findings.push(
      finding(
        "case-files",
        tomlPath,
        new CaseLoadFailed(tomlPath, "task_class", `"${toml.task_class}" must be "${taskClass.name}"`),
      ),
    );
  }
  for (const sub of ["input", "expected"]) {
    const subKind = await entryKind(join(casePath, sub));
    if (subKind === "symlink")
      findings.push(
        finding(
          "case-files",
          join(casePath, sub),
          new CaseUnsafePath(join(casePath, sub), "is a symlink; cases may hold only regular files and directories"),
        ),
      );
    else if (subKind !== "directory")
      findings.push(
        finding(
          "case-files",
          join(casePath, sub),
          new CaseLoadFailed(
            join(casePath, sub),
            null,
            `${sub}/ not found; every case needs input/ and expected/ directories`,
          ),
        ),
      );
  }
  return toml;
}

/**
 * Reads and validates cases/digests.yaml; null (with a finding) when it is missing or malformed. With
 * `checkpoint`, the validated file is kept there and reused while the file is unchanged.
 */
export async function readDigestsFile(
  taskClass: CaseOwner,
  findings: Finding[],
  checkpoint?: FileDigestCache,
): Promise<DigestsFile | null> {
  const path = join(taskClass.benchPath, "cases", "digests.yaml");
  return validatedFile(path, checkpoint, DIGESTS_FILE_DEFINITION, () => parseDigestsFile(taskClass, path, findings));
}

async function parseDigestsFile(taskClass: CaseOwner, path: string, findings: Finding[]): Promise<DigestsFile | null> {
  const kind = await entryKind(path);
  if (kind !== "file") {
    findings.push(finding("directory-contract", path, new TaskClassIncomplete(taskClass.name, path)));
    return null;
  }
  let raw: unknown;
  try {
    // js-yaml, not the yaml package the rest of the registry uses: every run parses this file whole (a
    // line per case file), and js-yaml reads it 10-15x faster (docs/performance.md, run-warm). Every value
    // in it is a string, so the failsafe schema: a case id such as 1_000 or 2026-01-01 stays as written.
    raw = loadYaml(await readText(path), { schema: FAILSAFE_SCHEMA });
  } catch (error) {
    findings.push(
      finding(
        "digests",
        path,
        new CaseLoadFailed(path, null, `invalid YAML: ${(error as Error).message.split("\n")[0]}`),
      ),
    );
    return null;
  }
  const parsed = safeParseWire(DigestsFileSchema, raw);
  if (!parsed.success) {
    findings.push(
      finding(
        "digests",
        path,
        new CaseLoadFailed(
          path,
          parsed.issues[0]!.path,
          `${formatIssues(parsed.issues)}; regenerate it with \`evalgate bench sign\``,
        ),
      ),
    );
    return null;
  }
  return parsed.data;
}

/** The case directories under cases/ (sorted), rejecting symlinks and stray non-directories. */
async function listCaseDirectories(taskClass: CaseOwner, findings: Finding[]): Promise<string[]> {
  const casesPath = join(taskClass.benchPath, "cases");
  if ((await entryKind(casesPath)) !== "directory") {
    findings.push(finding("directory-contract", casesPath, new TaskClassIncomplete(taskClass.name, casesPath)));
    return [];
  }
  const directories: string[] = [];
  for (const entry of await readdir(casesPath, { withFileTypes: true })) {
    const where = join(casesPath, entry.name);
    if (entry.isDirectory()) directories.push(entry.name);
    else if (entry.isSymbolicLink())
      findings.push(
        finding(
          "case-files",
          where,
          new CaseUnsafePath(where, "is a symlink; case directories must be real directories"),
        ),
      );
    else if (entry.name !== "digests.yaml" && entry.name !== "README.md" && !entry.name.startsWith(".")) {
      findings.push(
        finding(
          "case-files",
          where,
          new CaseLoadFailed(where, null, "cases/ may hold only case directories, digests.yaml and README.md"),
        ),
      );
    }
  }
  return directories.sort();
}

/** Describes how two file maps differ: the diverging paths, each marked changed, added or removed. */
export function diffFiles(
  recorded: Readonly<Record<string, string>>,
  computed: Readonly<Record<string, string>>,
): string[] {
  const paths = [...new Set([...Object.keys(recorded), ...Object.keys(computed)])].sort();
  const diverging: string[] = [];
  for (const path of paths) {
    if (recorded[path] === undefined) diverging.push(`${path} (added)`);
    else if (computed[path] === undefined) diverging.push(`${path} (removed)`);
    else if (recorded[path] !== computed[path]) diverging.push(`${path} (changed)`);
  }
  return diverging;
}

/**
 * Everything wrong with a task class's cases, and the cases that are right. `verify: false` skips
 * the digest comparison (what `bench sign` wants before it rewrites digests.yaml).
 */
export async function inspectCases(taskClass: CaseOwner, options: LoadCasesOptions = {}): Promise<CaseInspection> {
  const onWarning = options.onWarning ?? ignoreWarnings;
  const now = (options.now ?? new Date()).getTime();
  const findings: Finding[] = [];
  const directories = await listCaseDirectories(taskClass, findings);
  const verify = options.verify ?? true;
  const digests = verify ? await readDigestsFile(taskClass, findings, options.caseTrees) : null;

  const found: FoundCase[] = [];
  for (const directory of directories) {
    const casePath = join(taskClass.benchPath, "cases", directory);
    found.push({
      directory,
      casePath,
      toml: await readCaseToml(taskClass, directory, casePath, findings, options.caseTrees),
    });
  }

  const byId = new Map<string, string[]>();
  for (const { directory, casePath, toml } of found) {
    const id = toml?.case_id ?? directory;
    byId.set(id, [...(byId.get(id) ?? []), join(casePath, "case.toml")]);
  }
  for (const [caseId, paths] of byId) {
    if (paths.length > 1) findings.push(finding("case-ids", paths[0]!, new CaseIdCollision(caseId, paths)));
  }

  const cases: BenchCase[] = [];
  /** Each verified case's files other than case.toml (digests.yaml's entry), for the copied-case check. */
  const filesOf = new Map<string, Readonly<Record<string, string>>>();
  const hasCaseProblem = (casePath: string): boolean =>
    findings.some((existing) => existing.path.startsWith(`${casePath}/`) || existing.path === casePath);
  for (const { directory, casePath, toml } of found) {
    if (toml === null || hasCaseProblem(casePath)) continue;
    const recorded = digests?.cases[directory];
    const candidate = safeParseWire(BenchCaseSchema, {
      ...toml,
      case_path: casePath,
      input_path: join(casePath, "input"),
      expected_path: join(casePath, "expected"),
      cassette_path: (await entryKind(join(casePath, "cassette"))) === "directory" ? join(casePath, "cassette") : null,
      case_digest: recorded?.digest ?? `blake3:${"0".repeat(64)}`,
    });
    if (!candidate.success) {
      findings.push(
        finding(
          "case-files",
          join(casePath, "case.toml"),
          new CaseLoadFailed(join(casePath, "case.toml"), candidate.issues[0]!.path, formatIssues(candidate.issues)),
        ),
      );
      continue;
    }
    if (options.filter !== undefined && !options.filter(candidate.data)) continue;
    if (verify) {
      let computed;
      try {
        computed = caseTreeDigest(casePath, options.caseTrees);
        // A digest from the checkpoint names no files: digested again to say which ones differ.
        if (computed.reused && computed.digest !== recorded?.digest) computed = caseTreeDigest(casePath, undefined);
      } catch (error) {
        if (!isEvalError(error)) throw error;
        findings.push(finding("case-files", (error.details.path as string | undefined) ?? casePath, error));
        continue;
      }
      if (recorded === undefined) {
        if (digests !== null)
          findings.push(
            finding(
              "digests",
              casePath,
              new CaseDigestMismatch(directory, casePath, "has no entry in cases/digests.yaml", []),
            ),
          );
        continue;
      }
      if (computed.digest !== recorded.digest) {
        const diverging = diffFiles(recorded.files, computed.files);
        const reason =
          diverging.length > 0
            ? `files differ from cases/digests.yaml: ${diverging.join(", ")}`
            : "case digest differs from cases/digests.yaml";
        findings.push(finding("digests", casePath, new CaseDigestMismatch(directory, casePath, reason, diverging)));
        continue;
      }
      filesOf.set(candidate.data.case_id, recorded.files);
    }
    const lastValidated = Date.parse(toml.last_validated_at);
    if (now - lastValidated > STALE_AFTER_DAYS * DAY_MS) {
      onWarning({
        code: "case.stale",
        message: `case ${directory} was last validated ${toml.last_validated_at}, more than ${STALE_AFTER_DAYS} days ago; re-validate it, update last_validated_at and re-sign (evalgate bench sign)`,
        details: { case_id: directory, path: join(casePath, "case.toml"), last_validated_at: toml.last_validated_at },
      });
    }
    cases.push(candidate.data);
  }

  if (verify) findings.push(...copiedCases(cases, filesOf));
  if (verify && digests !== null) {
    for (const caseId of Object.keys(digests.cases)) {
      if (!directories.includes(caseId)) {
        const casePath = join(taskClass.benchPath, "cases", caseId);
        findings.push(
          finding(
            "digests",
            casePath,
            new CaseDigestMismatch(
              caseId,
              casePath,
              "is listed in cases/digests.yaml but its directory is missing",
              [],
            ),
          ),
        );
      }
    }
  }
  return {
    cases: cases.sort((a, b) => (a.case_id < b.case_id ? -1 : a.case_id > b.case_id ? 1 : 0)),
    findings,
    found: found.map(({ directory, casePath, toml }) => ({
      directory,
      casePath,
      curationClass: toml?.curation_class ?? null,
    })),
  };
}

/**
 * Two cases with the same files besides case.toml and the same canary pin are one case copied: their digests
 * differ only by case.toml (its case_id at least), so each has its own cache key, but the bound would count
 * one item twice. Each such group is a case-ids finding naming every case in it.
 */
function copiedCases(
  cases: readonly BenchCase[],
  filesOf: ReadonlyMap<string, Readonly<Record<string, string>>>,
): Finding[] {
  const byContent = new Map<string, BenchCase[]>();
  for (const benchCase of cases) {
    const files = Object.entries(filesOf.get(benchCase.case_id) ?? {}).filter(([path]) => path !== "case.toml");
    const key = `${JSON.stringify(files)}\0${benchCase.cassette_canary_pin}`;
    byContent.set(key, [...(byContent.get(key) ?? []), benchCase]);
  }
  return [...byContent.values()]
    .filter((group) => group.length > 1)
    .map((group) =>
      finding(
        "case-ids",
        group[0]!.case_path,
        new CaseContentCollision(
          group.map((c) => c.case_id),
          group[0]!.case_digest,
        ),
      ),
    );
}

/** Exit-code order for a loader that can report one problem: malformed first, then tampering. */
const SEVERITY_ORDER = [
  "EVAL_TASK_CLASS_INCOMPLETE",
  "EVAL_CASE_UNSAFE_PATH",
  "EVAL_CASE_LOAD_FAILED",
  "EVAL_CASE_ID_COLLISION",
  "EVAL_CASE_DIGEST_MISMATCH",
];

/** The cases a filter selected, and how many cases the task class holds in all. */
export interface CaseSelection {
  /** Sorted by case_id, digest-verified. */
  readonly selected: readonly BenchCase[];
  /** Every case directory of the task class (all of them valid: a problem anywhere throws). */
  readonly taskClassCaseCount: number;
}

/**
 * The task class's cases, sorted by case_id and digest-verified against cases/digests.yaml before
 * they are returned, with the task class's total case count (a run records both, so a subset is
 * never mistaken for the whole). Throws on the first problem (CaseLoadFailed, CaseUnsafePath,
 * CaseIdCollision: exit 1; CaseDigestMismatch: exit 6); `evalgate fence` lists all of them.
 */
export async function selectCases(taskClass: TaskClass, options: LoadCasesOptions = {}): Promise<CaseSelection> {
  const inspection = await inspectCases(taskClass, options);
  if (inspection.findings.length > 0) {
    const ranked = [...inspection.findings].sort(
      (a, b) => SEVERITY_ORDER.indexOf(a.error.code) - SEVERITY_ORDER.indexOf(b.error.code),
    );
    throw ranked[0]!.error;
  }
  return { selected: Object.freeze(inspection.cases), taskClassCaseCount: inspection.found.length };
}

/** The selected cases alone: `selectCases(...).selected`. */
export async function loadCases(taskClass: TaskClass, options: LoadCasesOptions = {}): Promise<readonly BenchCase[]> {
  return (await selectCases(taskClass, options)).selected;
}
