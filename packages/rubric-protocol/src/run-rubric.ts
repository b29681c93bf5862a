import {
  BenchScoreSchema,
  formatIssues,
  RUBRIC_RESPONSE_SCHEMA_VERSION,
  RubricRequestSchema,
  safeParseWire,
} from "@eval/models";
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
export async function runRubric(rubric: Rubric, io?: RubricIo): Promise<number> {
  const stdin = io?.stdin ?? process.stdin;
  const stdout = io?.stdout ?? process.stdout;
  const stderr = io?.stderr ?? process.stderr;
  const code = await scoreOnce(rubric, stdin, stdout, stderr);
  if (io === undefined) process.exitCode = code;
  return code;
}

async function scoreOnce(
  rubric: Rubric,
  stdin: AsyncIterable<string | Uint8Array>,
  stdout: { write(chunk: string): unknown },
  stderr: { write(chunk: string): unknown },
): Promise<number> {
  const fail = (code: number, message: string): number => {
    stderr.write(`rubric: ${message.replaceAll("\n", " ")}\n`);
    return code;
  };

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stdin) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk);
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
  const request = safeParseWire(RubricRequestSchema, json);
  if (!request.success) return fail(RUBRIC_EXIT.badRequest, `invalid request: ${formatIssues(request.issues)}`);

  let produced: unknown;
  try {
    produced = await rubric.score(request.data.case, request.data.harness_output, {
      workspacePath: request.data.context.workspace_path,
    });
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return fail(RUBRIC_EXIT.rubricFailed, `score() threw ${message.split("\n")[0]}`);
  }
  const score = safeParseWire(BenchScoreSchema, produced);
  if (!score.success) return fail(RUBRIC_EXIT.badScore, `score() returned an invalid BenchScore: ${formatIssues(score.issues)}`);

  stdout.write(`${JSON.stringify({ schema_version: RUBRIC_RESPONSE_SCHEMA_VERSION, score: score.data })}\n`);
  return RUBRIC_EXIT.ok;
}
