// Everything the main entry of @eval/rubric-protocol runs, in one module. A rubric is a fresh process
// per case, so what `import { runRubric } from "@eval/rubric-protocol"` loads is paid on every case:
// - no zod. @eval/models' index builds every zod schema at import (about 70 ms, more than the rest of a
//   cold case); the request and the score are checked by code generated from the zod schemas (below), and the full schemas load
//   only on a failure, to say why;
// - no ESM import of a builtin: importing node:fs builds its whole namespace (about 2 ms); the helpers
//   fetch the already loaded module with process.getBuiltinModule when they run;
// - one module behind the index: each further module a process links costs it about half a millisecond;
// - the functions every case runs are parenthesised function expressions, `const f = (function f() {})`:
//   V8 compiles those with the module instead of on first call, so they land in the compile cache the
//   runner gives a rubric (NODE_COMPILE_CACHE) and no process compiles them again (about 0.4 ms a case).
// `pnpm bench rubric-import` measures the idiom against a rubric importing nothing (goal: within 1.1x).
import type { BenchScore, HarnessOutput, RubricRequest } from "@eval/models";
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
 * The full zod schema's verdict on a value the generated check did not accept: the reasons when it
 * is invalid (zod's wording, path by path), the parsed value when the generated check was merely stricter.
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
// The wire checks: `RubricRequestSchema` and `BenchScoreSchema` of @eval/models as code, generated from
// those zod schemas by scripts/generate-wire-checks.ts (`pnpm schemas`; a drift test holds them equal).
// Each answers the parsed value (keys in the schema's order, defaults filled in, -0 as 0), or `undefined`
// for "not shown valid here", on which runRubric asks the full zod schema for the verdict and its
// message. wire-checks.test.ts holds them to the schemas on generated values. The harness validates
// every response against the full schema again (runner's rubric-isolation).

export const RUBRIC_REQUEST_SCHEMA_VERSION = "evalgate.rubric_request.v1";
export const RUBRIC_RESPONSE_SCHEMA_VERSION = "evalgate.rubric_response.v1";

type Fields = Record<string, unknown>;

/** A plain object (object literal or JSON.parse), with string keys only: what the checks trust. */
const plainObject = (function plainObject(value: unknown): value is Fields {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.getPrototypeOf(value) === Object.prototype &&
    Object.getOwnPropertySymbols(value).length === 0 &&
    !Object.hasOwn(value, "__proto__")
  );
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

/** `RubricRequestSchema` as code: the parsed, deep-frozen request, or `undefined`. */
export const checkRubricRequest = (function checkRubricRequest(json: unknown): RubricRequest | undefined {
  const parsed = parseRubricRequest(json);
  return parsed === undefined ? undefined : (deepFreeze(parsed) as unknown as RubricRequest);
});

/** `BenchScoreSchema` as code: the parsed score (a new object), or `undefined`. */
export const checkBenchScore = (function checkBenchScore(value: unknown): BenchScore | undefined {
  return parseBenchScore(value) as unknown as BenchScore | undefined;
});

// ---- GENERATED by scripts/generate-wire-checks.ts from @eval/models' zod schemas: do not edit ----
const keysOfRubricRequest: ReadonlySet<string> = new Set(["schema_version","case","harness_output","context"]);
const keysOfRubricRequestCase: ReadonlySet<string> = new Set(["case_id","task_class","title","prompt","disposition","difficulty","source","curation_class","commit_sha","added_at","last_validated_at","cassette_canary_pin","rubric_wall_clock_seconds","case_path","input_path","expected_path","cassette_path","case_digest"]);
const keysOfRubricRequestContext: ReadonlySet<string> = new Set(["workspace_path"]);
const keysOfBenchScore: ReadonlySet<string> = new Set(["passed","score","breakdown","failure_modes","cost_usd","wall_clock_ms"]);
const keysOfBenchScoreFailureModesItem: ReadonlySet<string> = new Set(["code","severity","detail"]);

const parseRubricRequestCase = (function parseRubricRequestCase(value: unknown): Fields | undefined {
  if (!plainObject(value)) return undefined;
  for (const key of Object.keys(value)) if (!keysOfRubricRequestCase.has(key)) return undefined;
  const parsed: Fields = {};
  let v: unknown;
  v = value["case_id"];
  if ((parsed["case_id"] = ((typeof v === "string") && (v.length >= 1) && (v.length <= 128) && (/^[a-z0-9][a-z0-9._-]*$/.test(v)) ? v : undefined)) === undefined) return undefined;
  v = value["task_class"];
  if ((parsed["task_class"] = ((typeof v === "string") && (v.length >= 1) && (v.length <= 64) && (/^[a-z0-9]+(-[a-z0-9]+)*$/.test(v)) ? v : undefined)) === undefined) return undefined;
  v = value["title"];
  if (!Object.hasOwn(value, "title")) {}
  else if ((parsed["title"] = ((typeof v === "string") && (v.length >= 1) && (v.length <= 200) ? v : undefined)) === undefined) return undefined;
  v = value["prompt"];
  if (!Object.hasOwn(value, "prompt")) {}
  else if ((parsed["prompt"] = ((typeof v === "string") && (v.length >= 1) && (v.length <= 20000) ? v : undefined)) === undefined) return undefined;
  v = value["disposition"];
  if ((parsed["disposition"] = ((v === "positive" || v === "negative" || v === "ambiguous") ? v : undefined)) === undefined) return undefined;
  v = value["difficulty"];
  if ((parsed["difficulty"] = ((v === "easy" || v === "medium" || v === "hard") ? v : undefined)) === undefined) return undefined;
  v = value["source"];
  if ((parsed["source"] = ((v === "curated" || v === "outcome-ledger-derived" || v === "regression-converted") ? v : undefined)) === undefined) return undefined;
  v = value["curation_class"];
  if ((parsed["curation_class"] = ((v === "rag-corpus-derived" || v === "held-out") ? v : undefined)) === undefined) return undefined;
  v = value["commit_sha"];
  if (v === undefined) parsed["commit_sha"] = null;
  else if ((parsed["commit_sha"] = (v === null ? null : ((typeof v === "string") && (/^[0-9a-f]{7,64}$/.test(v)) ? v : undefined))) === undefined) return undefined;
  v = value["added_at"];
  if ((parsed["added_at"] = ((typeof v === "string") && (/^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$/.test(v)) ? v : undefined)) === undefined) return undefined;
  v = value["last_validated_at"];
  if ((parsed["last_validated_at"] = ((typeof v === "string") && (/^(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))T(?:(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d+)?(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d)))$/.test(v)) ? v : undefined)) === undefined) return undefined;
  v = value["cassette_canary_pin"];
  if ((parsed["cassette_canary_pin"] = ((typeof v === "string") && (/^[0-9a-f]{32}$/.test(v)) ? v : undefined)) === undefined) return undefined;
  v = value["rubric_wall_clock_seconds"];
  if (!Object.hasOwn(value, "rubric_wall_clock_seconds")) {}
  else if ((parsed["rubric_wall_clock_seconds"] = ((typeof v === "number" && Number.isFinite(v)) && (v > 0) && (v <= 300) ? v : undefined)) === undefined) return undefined;
  v = value["case_path"];
  if ((parsed["case_path"] = ((typeof v === "string") && (v.length >= 1) ? v : undefined)) === undefined) return undefined;
  v = value["input_path"];
  if ((parsed["input_path"] = ((typeof v === "string") && (v.length >= 1) ? v : undefined)) === undefined) return undefined;
  v = value["expected_path"];
  if ((parsed["expected_path"] = ((typeof v === "string") && (v.length >= 1) ? v : undefined)) === undefined) return undefined;
  v = value["cassette_path"];
  if ((parsed["cassette_path"] = (v === null ? null : ((typeof v === "string") && (v.length >= 1) ? v : undefined))) === undefined) return undefined;
  v = value["case_digest"];
  if ((parsed["case_digest"] = ((typeof v === "string") && (/^blake3:[0-9a-f]{64}$/.test(v)) ? v : undefined)) === undefined) return undefined;
  if (!((parsed.source === "curated") === (parsed.commit_sha === null))) return undefined;
  return parsed;
});

const parseRubricRequestHarnessOutput = (function parseRubricRequestHarnessOutput(value: unknown): Fields | undefined {
  if (!plainObject(value)) return undefined;
  const parsed: Fields = {};
  let v: unknown;
  v = value["cost_usd"];
  if (!Object.hasOwn(value, "cost_usd")) {}
  else if ((parsed["cost_usd"] = ((typeof v === "number" && Number.isFinite(v)) && (v >= 0) ? withoutNegativeZero(v as number) : undefined)) === undefined) return undefined;
  for (const key of Object.keys(value)) if (!Object.hasOwn(parsed, key)) parsed[key] = value[key];
  return parsed;
});

const parseRubricRequestContext = (function parseRubricRequestContext(value: unknown): Fields | undefined {
  if (!plainObject(value)) return undefined;
  for (const key of Object.keys(value)) if (!keysOfRubricRequestContext.has(key)) return undefined;
  const parsed: Fields = {};
  let v: unknown;
  v = value["workspace_path"];
  if ((parsed["workspace_path"] = (v === null ? null : ((typeof v === "string") && (v.length >= 1) ? v : undefined))) === undefined) return undefined;
  return parsed;
});

const parseRubricRequest = (function parseRubricRequest(value: unknown): Fields | undefined {
  if (!plainObject(value)) return undefined;
  for (const key of Object.keys(value)) if (!keysOfRubricRequest.has(key)) return undefined;
  const parsed: Fields = {};
  let v: unknown;
  v = value["schema_version"];
  if ((parsed["schema_version"] = ((v === "evalgate.rubric_request.v1") ? v : undefined)) === undefined) return undefined;
  v = value["case"];
  if ((parsed["case"] = parseRubricRequestCase(v)) === undefined) return undefined;
  v = value["harness_output"];
  if ((parsed["harness_output"] = parseRubricRequestHarnessOutput(v)) === undefined) return undefined;
  v = value["context"];
  if ((parsed["context"] = parseRubricRequestContext(v)) === undefined) return undefined;
  return parsed;
});

const parseBenchScoreBreakdown = (function parseBenchScoreBreakdown(value: unknown): Fields | undefined {
  if (!plainObject(value)) return undefined;
  const parsed: Fields = {};
  for (const key of Object.keys(value)) {
    let v: unknown = key;
    if (!((typeof v === "string") && (v.length >= 1) && (v.length <= 64))) return undefined;
    v = value[key];
    if ((parsed[key] = ((typeof v === "number" && Number.isFinite(v)) ? withoutNegativeZero(v as number) : undefined)) === undefined) return undefined;
  }
  return parsed;
});

const parseBenchScoreFailureModesItem = (function parseBenchScoreFailureModesItem(value: unknown): Fields | undefined {
  if (!plainObject(value)) return undefined;
  for (const key of Object.keys(value)) if (!keysOfBenchScoreFailureModesItem.has(key)) return undefined;
  const parsed: Fields = {};
  let v: unknown;
  v = value["code"];
  if ((parsed["code"] = ((typeof v === "string") && (v.length >= 1) && (v.length <= 128) && (/^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/.test(v)) ? v : undefined)) === undefined) return undefined;
  v = value["severity"];
  if ((parsed["severity"] = ((v === "block" || v === "warn" || v === "info") ? v : undefined)) === undefined) return undefined;
  v = value["detail"];
  if (v === undefined) parsed["detail"] = null;
  else if ((parsed["detail"] = (v === null ? null : ((typeof v === "string") && (v.length <= 4000) ? v : undefined))) === undefined) return undefined;
  return parsed;
});

const parseBenchScoreFailureModes = (function parseBenchScoreFailureModes(value: unknown): unknown[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const parsed: unknown[] = [];
  for (let index = 0; index < value.length; index += 1) {
    const v: unknown = value[index];
    const item = parseBenchScoreFailureModesItem(v);
    if (item === undefined) return undefined;
    parsed.push(item);
  }
  return parsed;
});

const parseBenchScore = (function parseBenchScore(value: unknown): Fields | undefined {
  if (!plainObject(value)) return undefined;
  for (const key of Object.keys(value)) if (!keysOfBenchScore.has(key)) return undefined;
  const parsed: Fields = {};
  let v: unknown;
  v = value["passed"];
  if ((parsed["passed"] = ((typeof v === "boolean") ? v : undefined)) === undefined) return undefined;
  v = value["score"];
  if ((parsed["score"] = ((typeof v === "number" && Number.isFinite(v)) && (v >= 0) && (v <= 1) ? withoutNegativeZero(v as number) : undefined)) === undefined) return undefined;
  v = value["breakdown"];
  if ((parsed["breakdown"] = parseBenchScoreBreakdown(v)) === undefined) return undefined;
  v = value["failure_modes"];
  if ((parsed["failure_modes"] = parseBenchScoreFailureModes(v)) === undefined) return undefined;
  v = value["cost_usd"];
  if ((parsed["cost_usd"] = ((typeof v === "number" && Number.isFinite(v)) && (v >= 0) ? withoutNegativeZero(v as number) : undefined)) === undefined) return undefined;
  v = value["wall_clock_ms"];
  if ((parsed["wall_clock_ms"] = ((typeof v === "number" && Number.isFinite(v)) && (Number.isSafeInteger(v)) && (v >= 0) ? v : undefined)) === undefined) return undefined;
  return parsed;
});
// ---- END GENERATED ----

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
