// Per-case detail files: written when a case runs, and reused (hard-linked) when a later run hits the cache.
import { closeSync, copyFileSync, existsSync, linkSync, mkdirSync, openSync, readFileSync, readSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ioError } from "@eval/errors";
import { CASE_DETAIL_SCHEMA_VERSION, CaseDetailSchema, safeParseWire } from "@eval/models";
import type { BenchScore, CaseDetail, MeteredUsage, SutOutput, SutStreams, WorkspaceCapture } from "@eval/models";
import type { RubricOutcome } from "./rubric-isolation.ts";
import { replaceFileSync } from "@eval/durable-fs";
import { caseDetailFile, detailIndexPath, RUN_DIR_NAMES, RUNS_NAMES } from "@eval/state-layout";

// `detailIndexPath` names which run executed the case a cache key names, so a later cache hit can show
// that run's evidence; the leading dot keeps the index out of `gc`'s sweep and the chain's listing.

/**
 * Writes a detail file or an index pointer whole (atomic replace): a reader never sees half a file, and
 * a replaced file that is a hard link (a cache hit's detail) leaves the other name's content alone. The
 * run and `merge` both write details through here. No fsync: a pointer or a detail lost in a power cut
 * only costs a later hit, or a view, its evidence; the chain record is written durably.
 */
export function writeDetailFile(path: string, content: string): void {
  try {
    replaceFileSync(path, content, { mode: 0o600, survives: "crash" });
  } catch (error) {
    throw ioError(error, "cannot write", path);
  }
}

/** Records that `runId` executed the unit of `cacheKey` (its detail is `runs/<runId>/cases/<detailFile>`). */
export function indexCaseDetail(runsDir: string, cacheKey: string, runId: string, detailFile: string): void {
  const path = detailIndexPath(runsDir, cacheKey);
  try {
    mkdirSync(join(runsDir, RUNS_NAMES.detailIndex), { recursive: true });
  } catch (error) {
    throw ioError(error, "cannot create", join(runsDir, RUNS_NAMES.detailIndex));
  }
  writeDetailFile(path, `${JSON.stringify({ run_id: runId, file: detailFile })}\n`);
}

/**
 * For a cache hit of `runId`: links the detail of the run that executed the case into
 * `runs/<runId>/cases/<detailFile>` (a hard link, a copy where the file system refuses one). The file is
 * the executing run's, unchanged: its `run_id` names that run, which is how a reader tells a hit (see
 * `isCachedDetail`). Detail files are only ever replaced by a rename, never written in place, so the
 * link cannot change under the hitting run. Returns the link's path, or null when the index points at
 * nothing usable (an older state dir, a removed run directory, a damaged pointer): the hit simply has no
 * detail to show. The source is parsed only to check that it is the detail of `cacheKey` (a detail of
 * another key is never shown for this one); readers validate the whole file when they read it.
 */
export function linkCachedDetail(runsDir: string, cacheKey: string, runId: string, detailFile: string): string | null {
  const source = executedDetailPath(runsDir, cacheKey);
  if (source === null || !isDetailOf(source, cacheKey)) return null;
  const target = join(runsDir, runId, RUN_DIR_NAMES.cases, detailFile);
  try {
    mkdirSync(dirname(target), { recursive: true });
    try {
      linkSync(source, target);
    } catch {
      copyFileSync(source, target);
    }
    return target;
  } catch {
    return null;
  }
}

/** The detail file the index names for `cacheKey`, or null when there is no usable pointer. */
function executedDetailPath(runsDir: string, cacheKey: string): string | null {
  let pointer: { run_id?: unknown; file?: unknown };
  try {
    pointer = JSON.parse(readFileSync(detailIndexPath(runsDir, cacheKey), "utf8")) as typeof pointer;
  } catch {
    return null;
  }
  const { run_id: runId, file } = pointer;
  if (typeof runId !== "string" || typeof file !== "string") return null;
  if (file.includes("/") || runId.includes("/") || runId.includes("..")) return null;
  return join(runsDir, runId.replace(/^partial:/, ""), RUN_DIR_NAMES.cases, file);
}

/** How much of a detail file `isDetailOf` reads first: its top-level fields before the SUT's output. */
const DETAIL_HEAD_BYTES = 4096;

/**
 * Whether the detail file at `path` names `cacheKey`. `writeCaseDetail` writes `cache_key` as a top-level
 * line near the start, and a JSON string cannot hold a raw newline, so finding that exact line in the
 * file's head is proof without parsing the rest (a hit's detail can be hundreds of KiB); anything else
 * (an older layout, a long case id) is parsed whole.
 */
function isDetailOf(path: string, cacheKey: string): boolean {
  try {
    const fd = openSync(path, "r");
    let head: string;
    try {
      const buffer = Buffer.allocUnsafe(DETAIL_HEAD_BYTES);
      head = buffer.toString("utf8", 0, readSync(fd, buffer, 0, DETAIL_HEAD_BYTES, 0));
    } finally {
      closeSync(fd);
    }
    if (head.startsWith("{\n") && head.includes(`\n  "cache_key": ${JSON.stringify(cacheKey)},\n`)) return true;
    return (JSON.parse(readFileSync(path, "utf8")) as { cache_key?: unknown }).cache_key === cacheKey;
  } catch {
    return false;
  }
}

/**
 * Whether a detail file read from run `runId`'s directory came from the cache: a hit's file is the
 * executing run's (its `run_id` is that run's); details copied by older versions carry `from_cache`.
 */
export function isCachedDetail(
  detail: { readonly run_id: string; readonly from_cache?: unknown },
  runId: string,
): boolean {
  return detail.from_cache !== undefined || detail.run_id.replace(/^partial:/, "") !== runId.replace(/^partial:/, "");
}

/** What one executed unit left for its detail file. */
export interface CaseDetailInput {
  readonly runDir: string;
  readonly runId: string;
  readonly taskClass: string;
  readonly caseId: string;
  readonly cacheKey: string;
  readonly invocationTag: string;
  readonly trial: number;
  readonly sutOutput: SutOutput | null;
  readonly sutError: string | null;
  readonly sutMs: number;
  /** Symlinks and special files the SUT left, removed before the rubric looked. */
  readonly removedFromWorkspace: readonly string[];
  readonly outcome: RubricOutcome | null;
  readonly score: BenchScore;
  /** The workspace the SUT left, against the case's input (null when it was not walked: a timeout). */
  readonly workspace: WorkspaceCapture | null;
  /** What the SUT's process printed, when the SUT reported it. */
  readonly sutStreams: SutStreams | null;
  /** What the harness's model bridge metered, when the SUT's agent ran behind it. */
  readonly metered?: MeteredUsage | null;
}

/** How much of each SUT stream a detail keeps (the first bytes; the size says how much more there was). */
const SUT_STREAM_EXCERPT_BYTES = 64 * 1024;

function streamExcerpt(stream: string | Uint8Array): { text: string; bytes: number; truncated: boolean } {
  const buffer =
    typeof stream === "string"
      ? Buffer.from(stream, "utf8")
      : Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength);
  return {
    text: buffer.subarray(0, SUT_STREAM_EXCERPT_BYTES).toString("utf8"),
    bytes: buffer.length,
    truncated: buffer.length > SUT_STREAM_EXCERPT_BYTES,
  };
}

/** The rubric process as a detail file records it (null when no rubric ran). */
function rubricDetail(outcome: RubricOutcome | null): Record<string, unknown> | null {
  if (outcome === null) return null;
  const { process: rubricProcess } = outcome;
  return {
    argv: [...rubricProcess.argv],
    exit_code: rubricProcess.exitCode,
    signal: rubricProcess.signal,
    timed_out: rubricProcess.timedOut,
    output_capped: rubricProcess.outputCapped,
    wall_clock_ms: rubricProcess.wallClockMs,
    stdout: rubricProcess.stdout,
    stderr: rubricProcess.stderr,
  };
}

/**
 * Writes an executed unit's detail to `<runDir>/cases/<detail file>` (the directory must exist) and
 * indexes it for later cache hits. Returns the detail's path.
 */
export function writeCaseDetail(input: CaseDetailInput): string {
  const detailPath = join(input.runDir, RUN_DIR_NAMES.cases, caseDetailFile(input.caseId, input.trial));
  const detail = {
    schema_version: CASE_DETAIL_SCHEMA_VERSION,
    run_id: input.runId,
    task_class: input.taskClass,
    case_id: input.caseId,
    cache_key: input.cacheKey,
    invocation_tag: input.invocationTag,
    ...(input.trial === 0 ? {} : { trial: input.trial }),
    sut_output: input.sutOutput,
    sut_error: input.sutError,
    sut_wall_clock_ms: input.sutMs,
    ...(input.removedFromWorkspace.length === 0
      ? {}
      : { removed_from_workspace: input.removedFromWorkspace.slice(0, 100) }),
    ...(input.workspace === null ? {} : { workspace: input.workspace }),
    ...(input.sutStreams === null
      ? {}
      : {
          sut_streams: {
            stdout: streamExcerpt(input.sutStreams.stdout),
            stderr: streamExcerpt(input.sutStreams.stderr),
          },
        }),
    rubric: rubricDetail(input.outcome),
    score: input.score,
    ...(input.metered == null ? {} : { metered: input.metered }),
  };
  writeDetailFile(detailPath, `${JSON.stringify(detail, null, 2)}\n`);
  indexCaseDetail(dirname(input.runDir), input.cacheKey, input.runId, basename(detailPath));
  return detailPath;
}

/** A trial's detail file in a run's `cases/` directory, or null when it is missing or does not validate (evidence to show, not to trust). */
export function readCaseDetail(detailsDir: string, caseId: string, trial = 0): CaseDetail | null {
  const path = join(detailsDir, caseDetailFile(caseId, trial));
  if (!existsSync(path)) return null;
  try {
    const parsed = safeParseWire(CaseDetailSchema, JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
