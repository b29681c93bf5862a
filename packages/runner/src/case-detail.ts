// Per-case detail files: written when a case runs, and reused (copied) when a later run hits the cache.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { CASE_DETAIL_SCHEMA_VERSION, CaseDetailSchema, safeParseWire } from "@eval/models";
import type { BenchScore, SutOutput, SutStreams, WorkspaceCapture } from "@eval/models";
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
  writeFileAtomic.sync(path, content, { mode: 0o600, fsync: false });
}

/** Records that `runId` executed the unit of `cacheKey` (its detail is `runs/<runId>/cases/<detailFile>`). */
export function indexCaseDetail(runsDir: string, cacheKey: string, runId: string, detailFile: string): void {
  const path = detailIndexPath(runsDir, cacheKey);
  mkdirSync(join(runsDir, ".detail-index"), { recursive: true });
  writeAtomic(path, `${JSON.stringify({ run_id: runId, file: detailFile })}\n`);
}

/**
 * For a cache hit of `runId`: copies the detail of the run that executed the case into
 * `runs/<runId>/cases/<detailFile>`, marked `from_cache: { in_run_id }` (its `run_id` and
 * `invocation_tag` stay those of the executing run, where its transcript is found). Returns the copy's
 * path, or null when no earlier detail is on disk (an older state dir, a removed run directory).
 */
export function copyCachedDetail(runsDir: string, cacheKey: string, runId: string, detailFile: string): string | null {
  const indexPath = detailIndexPath(runsDir, cacheKey);
  if (!existsSync(indexPath)) return null;
  try {
    const pointer = JSON.parse(readFileSync(indexPath, "utf8")) as { run_id?: unknown; file?: unknown };
    if (typeof pointer.run_id !== "string" || typeof pointer.file !== "string" || pointer.file.includes("/")) return null;
    const source = join(runsDir, pointer.run_id.replace(/^partial:/, ""), "cases", pointer.file);
    if (!existsSync(source)) return null;
    const parsed = safeParseWire(CaseDetailSchema, JSON.parse(readFileSync(source, "utf8")));
    if (!parsed.success || parsed.data.cache_key !== cacheKey) return null;
    const target = join(runsDir, runId, "cases", detailFile);
    mkdirSync(join(runsDir, runId, "cases"), { recursive: true });
    writeAtomic(target, `${JSON.stringify({ ...parsed.data, from_cache: { in_run_id: runId } }, null, 2)}\n`);
    return target;
  } catch {
    // A damaged pointer or detail is not the run's problem: the hit simply has no detail to show.
    return null;
  }
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
  const { process } = outcome;
  return {
    argv: [...process.argv],
    exit_code: process.exitCode,
    signal: process.signal,
    timed_out: process.timedOut,
    output_capped: process.outputCapped,
    wall_clock_ms: process.wallClockMs,
    stdout: process.stdout,
    stderr: process.stderr,
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
