// Everything the main entry of @eval/rubric-protocol runs, in one module. A rubric is a fresh process
// per case, so what `import { runRubric } from "@eval/rubric-protocol"` loads is paid on every case:
// - no zod. @eval/models' index builds every zod schema at import (about 70 ms, more than the rest of a
//   cold case); the request and the score are checked here by hand (below), and the full schemas load
//   only on a failure, to say why;
// - no ESM import of a builtin: importing node:fs builds its whole namespace (about 2 ms); the helpers
//   fetch the already loaded module with process.getBuiltinModule when they run;
// - one module behind the index: each further module a process links costs it about half a millisecond;
// - the functions every case runs are parenthesised function expressions, `const f = (function f() {})`:
//   V8 compiles those with the module instead of on first call, so they land in the compile cache the
//   runner gives a rubric (NODE_COMPILE_CACHE) and no process compiles them again (about 0.4 ms a case).
// `pnpm bench rubric-import` measures the idiom against a rubric importing nothing (goal: within 1.1x).
import type { BenchCase, BenchScore, HarnessOutput, RubricRequest } from "@eval/models";
import type { Rubric } from "./rubric.ts";

/** The streams `runRubric` talks over; the defaults are the process's own. */
export interface RubricIo {
  readonly stdin?: AsyncIterable<string | Uint8Array>;
  readonly stdout?: { write(chunk: string): unknown };
  readonly stderr?: { write(chunk: string): unknown };
}

/**
 * Exit codes of a rubric subprocess, so a harness (or a person) can tell whose fault a failure was:
 * the request it was given, the rubric's own code, or the score the rubric produced.
 */
export const RUBRIC_EXIT = Object.freeze({
  ok: 0,
  /** `score()` threw. */
  rubricFailed: 1,
  /** stdin was not one valid RubricRequest JSON document. */
  badRequest: 2,
  /** `score()` returned something that is not a valid BenchScore. */
  badScore: 3,
});

/** The most a request may weigh; a larger one is refused rather than buffered without bound. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/**
 * The subprocess entry of a rubric: reads ONE RubricRequest JSON document from stdin, calls
 * `rubric.score`, validates what it returned, and writes ONE RubricResponse JSON line on stdout.
 * Any failure writes exactly one line on stderr and yields a non-zero exit code (RUBRIC_EXIT).
 * Returns the exit code; sets `process.exitCode` only when `io` is not given (the real entry point).
 */
export const runRubric = (async function runRubric(rubric: Rubric, io?: RubricIo): Promise<number> {
  const stdin = io?.stdin ?? process.stdin;
  const stdout = io?.stdout ?? process.stdout;
  // process.stderr is opened on first use, which costs a rubric that succeeds for nothing: only on failure.
  const fail = (code: number, message: string): number => {
    (io?.stderr ?? process.stderr).write(`rubric: ${message.replaceAll("\n", " ")}\n`);
    return code;
  };
  const code = await scoreOnce(rubric, stdin, stdout, fail);
  if (io === undefined) process.exitCode = code;
  return code;
});

const scoreOnce = (async function scoreOnce(
  rubric: Rubric,
  stdin: AsyncIterable<string | Uint8Array>,
  stdout: { write(chunk: string): unknown },
  fail: (code: number, message: string) => number,
): Promise<number> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk);
    size += bytes.length;
    if (size > MAX_REQUEST_BYTES) return fail(RUBRIC_EXIT.badRequest, `request larger than ${MAX_REQUEST_BYTES} bytes; send one RubricRequest JSON document`);
    chunks.push(bytes);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return fail(RUBRIC_EXIT.badRequest, "empty stdin; expected one RubricRequest JSON document (see `evalgate schemas rubric-request`)");

  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return fail(RUBRIC_EXIT.badRequest, `stdin is not JSON (${(error as Error).message}); expected one RubricRequest document`);
  }
  let request = checkRubricRequest(json);
  if (request === undefined) {
    const verdict = await validateWithSchema("RubricRequestSchema", json);
    if (!verdict.success) return fail(RUBRIC_EXIT.badRequest, `invalid request: ${verdict.message}`);
    request = verdict.data as RubricRequest;
  }

  let produced: unknown;
  try {
    produced = await rubric.score(request.case, request.harness_output, {
      workspacePath: request.context.workspace_path,
    });
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return fail(RUBRIC_EXIT.rubricFailed, `score() threw ${message.split("\n")[0]}`);
  }
  let score = checkBenchScore(produced);
  if (score === undefined) {
    const verdict = await validateWithSchema("BenchScoreSchema", produced);
    if (!verdict.success) return fail(RUBRIC_EXIT.badScore, `score() returned an invalid BenchScore: ${verdict.message}`);
    score = verdict.data as BenchScore;
  }

  stdout.write(`${JSON.stringify({ schema_version: RUBRIC_RESPONSE_SCHEMA_VERSION, score })}\n`);
  return RUBRIC_EXIT.ok;
});

type Verdict = { readonly success: true; readonly data: unknown } | { readonly success: false; readonly message: string };

/**
 * The full zod schema's verdict on a value the hand-written check did not accept: the reasons when it
 * is invalid (zod's wording, path by path), the parsed value when the hand check was merely stricter.
 * @eval/models (and zod) load only here, off the path a valid case takes.
 */
async function validateWithSchema(schema: "RubricRequestSchema" | "BenchScoreSchema", value: unknown): Promise<Verdict> {
  let models: typeof import("@eval/models");
  try {
    models = await import("@eval/models");
  } catch (error) {
    return { success: false, message: `not valid, and @eval/models could not be loaded to say why (${(error as Error).message})` };
  }
  const result = models.safeParseWire(models[schema], value);
  return result.success ? { success: true, data: result.data } : { success: false, message: models.formatIssues(result.issues) };
}

// ---------------------------------------------------------------------------------------------------
// The wire checks. `RubricRequestSchema` and `BenchScoreSchema` of @eval/models written out field by
// field: the same limits, patterns, defaults and -0 normalisation, the output in the schema's key order.
// They are conservative: each answers the parsed value, or `undefined` for "not shown valid here", on
// which runRubric asks the full zod schema for the verdict (and its message). So they may be stricter
// than the schemas, never looser; wire-checks.test.ts holds them to the schemas on generated values.
// The harness validates every response against the full schema again (runner's rubric-isolation).

export const RUBRIC_REQUEST_SCHEMA_VERSION = "evalgate.rubric_request.v1";
export const RUBRIC_RESPONSE_SCHEMA_VERSION = "evalgate.rubric_response.v1";

type Fields = Record<string, unknown>;

/** A plain object (object literal or JSON.parse), with string keys only: what the checks below trust. */
const plainObject = (function plainObject(value: unknown): value is Fields {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    Object.getOwnPropertySymbols(value).length === 0 &&
    !Object.hasOwn(value, "__proto__")
  );
});

/** A plain object whose keys are all in `allowed` (zod's strictObject). */
const strictObject = (function strictObject(value: unknown, allowed: ReadonlySet<string>): value is Fields {
  if (!plainObject(value)) return false;
  for (const key of Object.keys(value)) if (!allowed.has(key)) return false;
  return true;
});

/** A string of `min` to `max` UTF-16 units (zod's min/max), matching `pattern` when one is given. */
const text = (function text(value: unknown, min: number, max: number, pattern?: (value: string) => boolean): value is string {
  return typeof value === "string" && value.length >= min && value.length <= max && (pattern === undefined || pattern(value));
});

/** A number other than NaN and ±Infinity (zod's z.number()). */
const finite = (function finite(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
});

/** JSON cannot carry -0 and canonical hashes must not depend on it: the schemas turn it into 0. */
const withoutNegativeZero = (function withoutNegativeZero(value: number): number {
  return value === 0 ? 0 : value;
});

/** Freezes a plain JSON-like value in place, recursively (as @eval/models' parseWire does). */
const deepFreeze = (function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Fields)[key]);
    Object.freeze(value);
  }
  return value;
});

// The patterns of @eval/models' primitives.ts and case.ts, matched character by character: a regular
// expression is compiled on its first use in every process (about 0.3 ms for these), while this code
// comes from the compile cache.
const DIGITS = "0123456789";
const LOWER_HEX = "0123456789abcdef";
const LOWER_LETTERS = "abcdefghijklmnopqrstuvwxyz";
const LOWER_ALNUM = `${DIGITS}${LOWER_LETTERS}`;

/** Whether `value` has characters from `from` to `to` and each of them is one of `allowed`. */
const only = (function only(value: string, allowed: string, from = 0, to = value.length): boolean {
  if (to > value.length) return false;
  for (let index = from; index < to; index += 1) if (!allowed.includes(value.charAt(index))) return false;
  return true;
});

/** The number the characters of `value` from `from` to `to` spell when they are all digits, else -1. */
const digitsAt = (function digitsAt(value: string, from: number, to: number): number {
  return only(value, DIGITS, from, to) ? Number(value.slice(from, to)) : -1;
});

/** `^[a-z0-9][a-z0-9._-]*$` (CaseIdSchema). */
const caseIdPattern = (function caseIdPattern(value: string): boolean {
  return only(value, LOWER_ALNUM, 0, 1) && only(value, `${LOWER_ALNUM}._-`, 1);
});

/** `^[a-z0-9]+(-[a-z0-9]+)*$` (TaskClassNameSchema). */
const taskClassPattern = (function taskClassPattern(value: string): boolean {
  return only(value, `${LOWER_ALNUM}-`) && !value.startsWith("-") && !value.endsWith("-") && !value.includes("--");
});

/** `^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$` (FailureModeCodeSchema). */
const failureModeCodePattern = (function failureModeCodePattern(value: string): boolean {
  return only(value, LOWER_LETTERS, 0, 1) && only(value, `${LOWER_ALNUM}_-.`) && !value.endsWith(".") && !value.includes("..");
});

/** `^[0-9a-f]{7,64}$` (a commit sha). */
const commitShaPattern = (function commitShaPattern(value: string): boolean {
  return value.length >= 7 && value.length <= 64 && only(value, LOWER_HEX);
});

/** `^[0-9a-f]{32}$` (CanaryPinSchema). */
const canaryPinPattern = (function canaryPinPattern(value: string): boolean {
  return value.length === 32 && only(value, LOWER_HEX);
});

/** `^blake3:[0-9a-f]{64}$` (Blake3DigestSchema). */
const blake3Pattern = (function blake3Pattern(value: string): boolean {
  return value.length === 71 && value.startsWith("blake3:") && only(value, LOWER_HEX, 7);
});

const SEVERITIES: ReadonlySet<unknown> = new Set(["block", "warn", "info"]);
const DISPOSITIONS: ReadonlySet<unknown> = new Set(["positive", "negative", "ambiguous"]);
const DIFFICULTIES: ReadonlySet<unknown> = new Set(["easy", "medium", "hard"]);
const SOURCES: ReadonlySet<unknown> = new Set(["curated", "outcome-ledger-derived", "regression-converted"]);
const CURATION_CLASSES: ReadonlySet<unknown> = new Set(["rag-corpus-derived", "held-out"]);

/** BenchCaseSchema's fields, in its order (the order zod writes them in). */
export const BENCH_CASE_KEYS = [
  "case_id",
  "task_class",
  "title",
  "prompt",
  "disposition",
  "difficulty",
  "source",
  "curation_class",
  "commit_sha",
  "added_at",
  "last_validated_at",
  "cassette_canary_pin",
  "rubric_wall_clock_seconds",
  "case_path",
  "input_path",
  "expected_path",
  "cassette_path",
  "case_digest",
] as const;
const BENCH_CASE_KEY_SET: ReadonlySet<string> = new Set(BENCH_CASE_KEYS);
const OPTIONAL_CASE_KEYS: ReadonlySet<string> = new Set(["title", "prompt", "rubric_wall_clock_seconds"]);

/** BenchScoreSchema's fields, in its order. */
export const BENCH_SCORE_KEYS = ["passed", "score", "breakdown", "failure_modes", "cost_usd", "wall_clock_ms"] as const;
const BENCH_SCORE_KEY_SET: ReadonlySet<string> = new Set(BENCH_SCORE_KEYS);
export const FAILURE_MODE_KEYS = ["code", "severity", "detail"] as const;
const FAILURE_MODE_KEY_SET: ReadonlySet<string> = new Set(FAILURE_MODE_KEYS);
export const RUBRIC_REQUEST_KEYS = ["schema_version", "case", "harness_output", "context"] as const;
const RUBRIC_REQUEST_KEY_SET: ReadonlySet<string> = new Set(RUBRIC_REQUEST_KEYS);
const CONTEXT_KEY_SET: ReadonlySet<string> = new Set(["workspace_path"]);

/**
 * zod's `z.iso.datetime({ offset: true })` (TimestampSchema): `YYYY-MM-DDTHH:MM:SS`, optional fraction
 * digits, then `Z` or `±HH:MM`, on a real calendar date (Gregorian leap years).
 */
const timestamp = (function timestamp(value: unknown): boolean {
  if (typeof value !== "string" || value.length < 20) return false;
  if (value[4] !== "-" || value[7] !== "-" || value[10] !== "T" || value[13] !== ":" || value[16] !== ":") return false;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 7);
  const day = digitsAt(value, 8, 10);
  const hour = digitsAt(value, 11, 13);
  const minute = digitsAt(value, 14, 16);
  const second = digitsAt(value, 17, 19);
  if (year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return false;
  let end = 19;
  if (value[end] === ".") {
    end += 1;
    while (end < value.length && DIGITS.includes(value.charAt(end))) end += 1;
    if (end === 20) return false;
  }
  const offset = value.slice(end);
  if (offset !== "Z") {
    if (offset.length !== 6 || (offset[0] !== "+" && offset[0] !== "-") || offset[3] !== ":") return false;
    const offsetHours = digitsAt(offset, 1, 3);
    const offsetMinutes = digitsAt(offset, 4, 6);
    if (offsetHours < 0 || offsetHours > 23 || offsetMinutes < 0 || offsetMinutes > 59) return false;
  }
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 ? (leap ? 29 : 28) : month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return day <= days;
});

/** Whether one present BenchCase field holds a value its schema accepts. */
const caseFieldValid = (function caseFieldValid(key: (typeof BENCH_CASE_KEYS)[number], value: unknown): boolean {
  switch (key) {
    case "case_id":
      return text(value, 1, 128, caseIdPattern);
    case "task_class":
      return text(value, 1, 64, taskClassPattern);
    case "title":
      return text(value, 1, 200);
    case "prompt":
      return text(value, 1, 20000);
    case "disposition":
      return DISPOSITIONS.has(value);
    case "difficulty":
      return DIFFICULTIES.has(value);
    case "source":
      return SOURCES.has(value);
    case "curation_class":
      return CURATION_CLASSES.has(value);
    case "commit_sha":
      return value === null || text(value, 0, Infinity, commitShaPattern);
    case "added_at":
    case "last_validated_at":
      return timestamp(value);
    case "cassette_canary_pin":
      return text(value, 0, Infinity, canaryPinPattern);
    case "rubric_wall_clock_seconds":
      return finite(value) && value > 0 && value <= 300;
    case "cassette_path":
      return value === null || text(value, 1, Infinity);
    case "case_digest":
      return text(value, 0, Infinity, blake3Pattern);
    default:
      // case_path, input_path, expected_path
      return text(value, 1, Infinity);
  }
});

/** BenchCaseSchema by hand: the parsed case (commit_sha defaulted to null), or undefined. */
const checkBenchCase = (function checkBenchCase(value: unknown): BenchCase | undefined {
  if (!strictObject(value, BENCH_CASE_KEY_SET)) return undefined;
  const parsed: Fields = {};
  for (const key of BENCH_CASE_KEYS) {
    const field = value[key];
    if (field === undefined) {
      // Absent optional fields stay absent; a key present with `undefined` (not JSON) is left to zod.
      if (OPTIONAL_CASE_KEYS.has(key) && !Object.hasOwn(value, key)) continue;
      if (key === "commit_sha" && !Object.hasOwn(value, key)) {
        parsed[key] = null;
        continue;
      }
      return undefined;
    }
    if (!caseFieldValid(key, field)) return undefined;
    parsed[key] = field;
  }
  // commit_sha is required exactly when the case was derived from history (source is not "curated").
  if ((parsed.source === "curated") !== (parsed.commit_sha === null)) return undefined;
  return parsed as unknown as BenchCase;
});

/** HarnessOutputSchema (a loose object with an optional cost_usd) by hand. */
const checkHarnessOutput = (function checkHarnessOutput(value: unknown): HarnessOutput | undefined {
  if (!plainObject(value)) return undefined;
  if (!Object.hasOwn(value, "cost_usd")) return value as HarnessOutput;
  const cost = value.cost_usd;
  if (!finite(cost) || cost < 0) return undefined;
  // zod writes the declared key first, then the others in their order.
  const parsed: Fields = { cost_usd: withoutNegativeZero(cost) };
  for (const key of Object.keys(value)) if (key !== "cost_usd") parsed[key] = value[key];
  return parsed as HarnessOutput;
});

/**
 * `RubricRequestSchema` by hand: the parsed, deep-frozen request, or `undefined` when `json` is not
 * shown valid here (then the full schema decides, and says why).
 */
export const checkRubricRequest = (function checkRubricRequest(json: unknown): RubricRequest | undefined {
  if (!strictObject(json, RUBRIC_REQUEST_KEY_SET)) return undefined;
  if (json.schema_version !== RUBRIC_REQUEST_SCHEMA_VERSION) return undefined;
  const benchCase = checkBenchCase(json.case);
  const harnessOutput = checkHarnessOutput(json.harness_output);
  const context = json.context;
  if (benchCase === undefined || harnessOutput === undefined || !strictObject(context, CONTEXT_KEY_SET)) return undefined;
  const workspacePath = context.workspace_path;
  if (workspacePath !== null && !text(workspacePath, 1, Infinity)) return undefined;
  return deepFreeze({
    schema_version: RUBRIC_REQUEST_SCHEMA_VERSION,
    case: benchCase,
    harness_output: harnessOutput,
    context: { workspace_path: workspacePath },
  }) as RubricRequest;
});

/** FailureModeSchema by hand (`detail` defaults to null). */
const checkFailureMode = (function checkFailureMode(value: unknown): BenchScore["failure_modes"][number] | undefined {
  if (!strictObject(value, FAILURE_MODE_KEY_SET)) return undefined;
  const { code, severity } = value;
  if (!text(code, 1, 128, failureModeCodePattern) || !SEVERITIES.has(severity)) return undefined;
  let detail = value.detail;
  if (detail === undefined) detail = null;
  else if (detail !== null && !text(detail, 0, 4000)) return undefined;
  return { code, severity: severity as "block" | "warn" | "info", detail: detail as string | null };
});

/**
 * `BenchScoreSchema` by hand: the parsed score (a new object, -0 as 0, failure-mode details defaulted
 * to null), or `undefined` when `value` is not shown valid here.
 */
export const checkBenchScore = (function checkBenchScore(value: unknown): BenchScore | undefined {
  if (!strictObject(value, BENCH_SCORE_KEY_SET)) return undefined;
  const { passed, score, breakdown, failure_modes: failureModes, cost_usd: cost, wall_clock_ms: wallClockMs } = value;
  if (typeof passed !== "boolean") return undefined;
  if (!finite(score) || score < 0 || score > 1) return undefined;
  if (!finite(cost) || cost < 0) return undefined;
  if (!Number.isSafeInteger(wallClockMs) || (wallClockMs as number) < 0) return undefined;
  if (!plainObject(breakdown) || !Array.isArray(failureModes)) return undefined;
  const parsedBreakdown: Record<string, number> = {};
  for (const key of Object.keys(breakdown)) {
    const entry = breakdown[key];
    if (key.length < 1 || key.length > 64 || !finite(entry)) return undefined;
    parsedBreakdown[key] = withoutNegativeZero(entry);
  }
  const parsedFailureModes: BenchScore["failure_modes"][number][] = [];
  for (let index = 0; index < failureModes.length; index += 1) {
    const mode = checkFailureMode(failureModes[index]);
    if (mode === undefined) return undefined;
    parsedFailureModes.push(mode);
  }
  return {
    passed,
    score: withoutNegativeZero(score),
    breakdown: parsedBreakdown,
    failure_modes: parsedFailureModes,
    cost_usd: withoutNegativeZero(cost),
    wall_clock_ms: wallClockMs as number,
  };
});

// ---------------------------------------------------------------------------------------------------
// Helpers for rubric authors. node:fs and node:path are fetched when a helper runs (see the top).

function listFiles(root: string): string[] {
  const { readdirSync } = process.getBuiltinModule("node:fs");
  const { join, relative } = process.getBuiltinModule("node:path");
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(relative(root, full).split("\\").join("/"));
    }
  };
  walk(root);
  return files;
}

/**
 * The files a SUT added, removed or modified in its workspace, relative POSIX paths in sorted order:
 * what a rubric compares against the case's `input/` to judge scope.
 */
export function changedFiles(inputPath: string, workspacePath: string): string[] {
  const { readFileSync } = process.getBuiltinModule("node:fs");
  const { join } = process.getBuiltinModule("node:path");
  const before = new Set(listFiles(inputPath));
  const after = new Set(listFiles(workspacePath));
  return [...new Set([...before, ...after])]
    .filter((path) => !before.has(path) || !after.has(path) || !readFileSync(join(inputPath, path)).equals(readFileSync(join(workspacePath, path))))
    .sort();
}

/**
 * Why an agent SUT reported a CLI error, from its harness output: the trial classification's
 * `cli_error_kind: reason` (what the replay and live agent SUTs return), else a plain `error` string.
 */
export function agentErrorDetail(harnessOutput: HarnessOutput): string {
  const classification = harnessOutput.classification as { reason?: unknown; cli_error_kind?: unknown } | undefined;
  if (classification && typeof classification.reason === "string") {
    return typeof classification.cli_error_kind === "string" ? `${classification.cli_error_kind}: ${classification.reason}` : classification.reason;
  }
  return typeof harnessOutput.error === "string" ? harnessOutput.error : "the agent CLI reported an error before working on the task";
}

// ---------------------------------------------------------------------------------------------------
// JSON Schemas for rubrics in other languages.

/**
 * One JSON Schema as @eval/models ships it (`schemas/<name>.schema.json`, generated from the zod schemas
 * with `toJsonSchema` and held to them by that package's drift test): read from the file rather than
 * generated with zod, which this module never loads on its own.
 */
function shippedJsonSchema(name: string): Record<string, unknown> {
  const { readFileSync } = process.getBuiltinModule("node:fs");
  const { createRequire } = process.getBuiltinModule("node:module");
  const path = createRequire(import.meta.url).resolve(`@eval/models/schemas/${name}.schema.json`);
  return JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
}

/**
 * The JSON Schema (draft 2020-12) of the document a rubric reads on stdin, for rubrics written in
 * other languages. The same file ships as `@eval/models/schemas/rubric-request.schema.json`.
 */
export function rubricRequestJsonSchema(): Record<string, unknown> {
  return shippedJsonSchema("rubric-request");
}

/** The JSON Schema of the one line a rubric writes on stdout (`rubric-response.schema.json`). */
export function rubricResponseJsonSchema(): Record<string, unknown> {
  return shippedJsonSchema("rubric-response");
}
