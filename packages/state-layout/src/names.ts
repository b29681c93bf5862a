// Every name evalgate writes under its state directory, spelled once. docs/architecture.md ("State on
// disk") describes what each holds.
import { join } from "node:path";

/** The state directory when neither `--out`, `EVALGATE_STATE_DIR` nor a config file names one. */
export const DEFAULT_STATE_DIR = ".evalgate";

/** The entries directly under the state directory. */
export const STATE_NAMES = {
  /** The chain's records, `runs/<run-id>/` details, the head pointer and the append lock. */
  runs: "runs",
  /** Cached scores, content-addressed. */
  cache: "cache",
  /** The cache entries' HMAC key, outside `cache/` so a copy of the cache never carries it. */
  cacheKey: "cache.key",
  /** Captured workspace files, by BLAKE3. */
  blobs: "blobs",
  /** One transcript line per agent invocation, optional stream logs. */
  transcripts: "transcripts",
  /** Verdicts and comparisons. */
  recommendations: "recommendations",
  /** Adapter compliance reports. */
  compliance: "compliance",
  /** This host's chain fingerprint. */
  hostId: "host_id",
  /** How far the chain has been verified, sealed with the cache key. */
  checkpoint: "chain.checkpoint",
  /** Content digests of the files a `command:` SUT can read, by device, inode, size, ctime and mtime. */
  fileDigests: "file-digests.json",
  /** Case-tree digests by the keys of every entry of each tree, sealed with the cache key. */
  caseTrees: "case-trees.sealed",
} as const;

/** The subdirectories evalgate writes into (each must be a writable directory when it exists). */
export const WRITTEN_SUBDIRS = [
  STATE_NAMES.runs,
  STATE_NAMES.cache,
  STATE_NAMES.recommendations,
  STATE_NAMES.compliance,
  STATE_NAMES.transcripts,
  STATE_NAMES.blobs,
] as const;

/** The entries of `runs/` besides the records and the run directories (a leading dot keeps them out of both listings). */
export const RUNS_NAMES = {
  /** `.index/head.json`: the chain's head pointer. */
  index: ".index",
  head: "head.json",
  /** `.index/history.json`: one summary per chain record, sealed with the cache key (the history index). */
  history: "history.json",
  /** `.index/catalog.<task class>.json`: a task class's records as a verdict lists them, sealed like the history index. */
  catalogPrefix: "catalog.",
  /** The append lock: a file naming its holder (pid, host, start time); `.append.lock.break` while a dead holder's is broken. */
  appendLock: ".append.lock",
  /** Where an append stages a record before linking it into place. */
  staging: ".staging",
  /** `.detail-index/<key hex>.json`: which run executed a cache key. */
  detailIndex: ".detail-index",
  /** `.staging/claim-<run-id>-XXXXXX/`: a run directory being claimed, renamed into place with its owner. */
  claimPrefix: "claim-",
} as const;

/** The entries of a run's directory `runs/<run-id>/` (the dotted ones stay out of the case listing). */
export const RUN_DIR_NAMES = {
  /** Per-case details. */
  cases: "cases",
  /** Which process owns the directory until its record lands. */
  owner: ".owner.json",
  /** Room held for the run's record until its append. */
  reserve: ".record-reserve",
  /** The record's chain hash, once it is in the chain. */
  recorded: ".recorded.json",
} as const;

/** A run's temporary directory is `<tmpdir>/evalgate-run-<run-id>-XXXXXX`, holding its owner's pid. */
export const RUN_TEMP = { prefix: "evalgate-run-", owner: "owner.pid" } as const;

/** The absolute-or-relative paths of a state directory's entries (joined, not resolved). */
export interface StateLayout {
  readonly root: string;
  readonly runs: string;
  readonly cache: string;
  readonly cacheKey: string;
  readonly blobs: string;
  readonly transcripts: string;
  readonly recommendations: string;
  readonly compliance: string;
  readonly hostId: string;
  readonly checkpoint: string;
  readonly fileDigests: string;
  readonly caseTrees: string;
}

/** Where each entry of the state directory `stateDir` lives. */
export function stateLayout(stateDir: string): StateLayout {
  const at = (name: string): string => join(stateDir, name);
  return {
    root: stateDir,
    runs: at(STATE_NAMES.runs),
    cache: at(STATE_NAMES.cache),
    cacheKey: at(STATE_NAMES.cacheKey),
    blobs: at(STATE_NAMES.blobs),
    transcripts: at(STATE_NAMES.transcripts),
    recommendations: at(STATE_NAMES.recommendations),
    compliance: at(STATE_NAMES.compliance),
    hostId: at(STATE_NAMES.hostId),
    checkpoint: at(STATE_NAMES.checkpoint),
    fileDigests: at(STATE_NAMES.fileDigests),
    caseTrees: at(STATE_NAMES.caseTrees),
  };
}

/** `<runsDir>/<runId>/cases`: a run's per-case details (`runId` without its `partial:` prefix). */
export function caseDetailsDir(runsDir: string, runId: string): string {
  return join(runsDir, runId, RUN_DIR_NAMES.cases);
}

/** A trial's detail file name: `<case>.json` for the first trial, `<case>.trial-<t>.json` for later ones. */
export function caseDetailFile(caseId: string, trial: number): string {
  return trial === 0 ? `${caseId}.json` : `${caseId}.trial-${trial}.json`;
}

/** `<runsDir>/.index/catalog.<task class>.json`: the task class's evidence catalog (task-class names are slugs). */
export function taskClassCatalogPath(runsDir: string, taskClass: string): string {
  return join(runsDir, RUNS_NAMES.index, `${RUNS_NAMES.catalogPrefix}${taskClass}.json`);
}

/** `<runsDir>/.detail-index/<key hex>.json`: which run executed the case a cache key names. */
export function detailIndexPath(runsDir: string, cacheKey: string): string {
  return join(runsDir, RUNS_NAMES.detailIndex, `${cacheKey.replace(/^blake3:/, "")}.json`);
}

/** `<transcriptsDir>/<task class>.jsonl`: a task class's transcript lines, one per agent invocation. */
export function transcriptFile(transcriptsDir: string, taskClass: string): string {
  return join(transcriptsDir, `${taskClass}.jsonl`);
}

/** `<transcriptsDir>/streams/`: the optional per-invocation stream logs (`<tag>.jsonl` raw, `<tag>.summary.txt`). */
export function transcriptStreamsDir(transcriptsDir: string): string {
  return join(transcriptsDir, "streams");
}
