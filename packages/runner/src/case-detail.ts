// Per-case detail files: written when a case runs, and reused (hard-linked) when a later run hits the cache.
import { copyFileSync, existsSync, linkSync, mkdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { ioError } from "@eval/errors";
import { CASE_DETAIL_SCHEMA_VERSION, CaseDetailSchema, safeParseWire } from "@eval/models";
import type { BenchScore, CaseDetail, SutOutput, SutStreams, WorkspaceCapture } from "@eval/models";
import type { RubricOutcome } from "./rubric-isolation.ts";
import { trialDetailFile } from "./trials.ts";
import writeFileAtomic from "write-file-atomic";

/**
 * `<runsDir>/.detail-index/<key hex>.json`: which run executed the case a cache key names, so a later
 * cache hit can show that run's evidence. The leading dot keeps it out of `gc`'s sweep of detail
 * directories and out of the chain's listing.
 */
export function detailIndexPath(runsDir: string, cacheKey: string): string {
  return join(runsDir, ".detail-index", `${cacheKey.replace(/^blake3:/, "")}.json`);
}

/**
 * Writes `content` to `path` through a temp file and a rename: a reader never sees half a file. No
 * fsync: a pointer or a copy lost in a crash only costs a later hit its detail.
 */
function writeAtomic(path: string, content: string): void {
  try {
    writeFileAtomic.sync(path, content, { mode: 0o600, fsync: false });
  } catch (error) {
    throw ioError(error, "cannot write", path);
  }
}

/** Records that `runId` executed the unit of `cacheKey` (its detail is `runs/<runId>/cases/<detailFile>`). */
export function indexCaseDetail(runsDir: string, cacheKey: string, runId: string, detailFile: string): void {
  const path = detailIndexPath(runsDir, cacheKey);
  try {
    mkdirSync(join(runsDir, ".detail-index"), { recursive: true });
  } catch (error) {
    throw ioError(error, "cannot create", join(runsDir, ".detail-index"));
  }
  writeAtomic(path, `${JSON.stringify({ run_id: runId, file: detailFile })}\n`);
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
  const target = join(runsDir, runId, "cases", detailFile);
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
  return join(runsDir, runId.replace(/^partial:/, ""), "cases", file);
}

/** Whether the detail file at `path` parses and names `cacheKey`. */
function isDetailOf(path: string, cacheKey: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, "utf8")) as { cache_key?: unknown }).cache_key === cacheKey;
  } catch {
    return false;
  }
}

/**
 * Whether a detail file read from run `runId`'s directory came from the cache: a hit's file is the
 * executing run's (its `run_id` is that run's); details copied by older versions carry `from_cache`.
 */
export function isCachedDetail(detail: { readonly run_id: string; readonly from_cache?: unknown }, runId: string): boolean {
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
}

/** How much of each SUT stream a detail keeps (the first bytes; the size says how much more there was). */
const SUT_STREAM_EXCERPT_BYTES = 64 * 1024;

function streamExcerpt(stream: string | Uint8Array): { text: string; bytes: number; truncated: boolean } {
  const buffer = typeof stream === "string" ? Buffer.from(stream, "utf8") : Buffer.from(stream.buffer, stream.byteOffset, stream.byteLength);
  return { text: buffer.subarray(0, SUT_STREAM_EXCERPT_BYTES).toString("utf8"), bytes: buffer.length, truncated: buffer.length > SUT_STREAM_EXCERPT_BYTES };
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
  const detailPath = join(input.runDir, "cases", trialDetailFile(input.caseId, input.trial));
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
    ...(input.removedFromWorkspace.length === 0 ? {} : { removed_from_workspace: input.removedFromWorkspace.slice(0, 100) }),
    ...(input.workspace === null ? {} : { workspace: input.workspace }),
    ...(input.sutStreams === null ? {} : { sut_streams: { stdout: streamExcerpt(input.sutStreams.stdout), stderr: streamExcerpt(input.sutStreams.stderr) } }),
    rubric: rubricDetail(input.outcome),
    score: input.score,
  };
  writeAtomic(detailPath, `${JSON.stringify(detail, null, 2)}\n`);
  indexCaseDetail(dirname(input.runDir), input.cacheKey, input.runId, basename(detailPath));
  return detailPath;
}

/** A trial's detail file in a run's `cases/` directory, or null when it is missing or does not validate (evidence to show, not to trust). */
export function readCaseDetail(detailsDir: string, caseId: string, trial = 0): CaseDetail | null {
  const path = join(detailsDir, trialDetailFile(caseId, trial));
  if (!existsSync(path)) return null;
  try {
    const parsed = safeParseWire(CaseDetailSchema, JSON.parse(readFileSync(path, "utf8")));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
