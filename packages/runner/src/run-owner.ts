// A run's claim on its detail directory `runs/<run-id>/`: which process owns it until its record
// lands, so `gc` removes only what a dead run left and never a live run's details.
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { currentOwner, ownerState, parseOwner } from "@eval/durable-fs";
import { ioError } from "@eval/errors";
import { RUN_DIR_NAMES, RUNS_NAMES } from "@eval/state-layout";

/** The marker inside a claimed detail directory; its leading dot keeps it out of the case listing. */
export const OWNER_FILE = RUN_DIR_NAMES.owner;
/**
 * Room held for the run's record from its claim until its append: when the disk fills during the run,
 * the append frees it and retries, so a run that started is recorded.
 */
const RESERVE_FILE = RUN_DIR_NAMES.reserve;
const CLAIM_PREFIX = RUNS_NAMES.claimPrefix;
/** A claim from another host cannot be checked from here: it is kept this long. */
const FOREIGN_CLAIM_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** The room a record of `units` units needs, with a wide margin (a unit's entry in a report is about 300 bytes). */
export function recordReserveBytes(units: number): number {
  return 64 * 1024 + units * 2048;
}

/**
 * Creates `runs/<runId>/` with this process's owner marker in it, atomically: the directory is made
 * in the staging area with its marker (and `reserveBytes` of room for the record) and renamed into
 * place, so no one ever sees it unowned. Returns the directory's path. A full disk refuses the run
 * here, before anything ran, naming the directory (EVAL_IO), and leaves nothing behind.
 */
export function claimRunDir(runsDir: string, runId: string, reserveBytes = 0): string {
  const staging = join(runsDir, RUNS_NAMES.staging);
  let temp: string | null = null;
  try {
    mkdirSync(staging, { recursive: true, mode: 0o700 });
    temp = mkdtempSync(join(staging, `${CLAIM_PREFIX}${runId}-`));
    writeFileSync(join(temp, OWNER_FILE), `${JSON.stringify(currentOwner())}\n`, { mode: 0o600 });
    if (reserveBytes > 0) writeFileSync(join(temp, RESERVE_FILE), Buffer.alloc(reserveBytes, 0x20), { mode: 0o600 });
    const runDir = join(runsDir, runId);
    renameSync(temp, runDir);
    return runDir;
  } catch (error) {
    if (temp !== null) rmSync(temp, { recursive: true, force: true });
    throw ioError(
      error,
      `cannot claim a detail directory (with ${Math.ceil(reserveBytes / 1024)} KiB kept for the run's record) in`,
      runsDir,
    );
  }
}

/** Frees the room kept for the record (before retrying an append that hit a full disk); whether there was any. */
export function freeRecordReserve(runDir: string): boolean {
  const path = join(runDir, RESERVE_FILE);
  if (!existsSync(path)) return false;
  rmSync(path, { force: true });
  return true;
}

/**
 * Gives up the claim once the run's record is in the chain (or its bundle is written): idempotent, and
 * never throws (a marker left on a recorded run is harmless: `gc` never removes a chained run's details).
 */
export function releaseRunDir(runDir: string): void {
  try {
    rmSync(join(runDir, RESERVE_FILE), { force: true });
    rmSync(join(runDir, OWNER_FILE), { force: true });
  } catch {
    // see above
  }
}

/** The marker a run's detail directory gets once its record is in the chain: the record's chain hash. */
const RECORDED_FILE = RUN_DIR_NAMES.recorded;

/**
 * Marks a detail directory as recorded (its run's record is in the chain), so that `gc` can tell a run removed
 * from the chain (a possible truncation: kept and reported) from one killed before it appended. Best effort:
 * a missing marker only lets `gc` treat the directory as a killed run's.
 */
export function markRecorded(runDir: string, chainHash: string): void {
  try {
    writeFileSync(join(runDir, RECORDED_FILE), `${JSON.stringify({ chain_hash: chainHash })}\n`, { mode: 0o600 });
  } catch {
    // see above
  }
}

/** The chain hash a detail directory's recorded marker names, or null when it has none. */
export function recordedChainHash(dir: string): string | null {
  try {
    const value = JSON.parse(readFileSync(join(dir, RECORDED_FILE), "utf8")) as { chain_hash?: unknown };
    return typeof value.chain_hash === "string" ? value.chain_hash : null;
  } catch {
    return null;
  }
}

/**
 * Who holds a directory: `"live"` (a process of this host that is still the one that claimed it, or
 * a recent claim from another host), `"dead"` (its owner is gone), or `"none"` (no readable marker).
 */
export function claimState(dir: string, now = Date.now()): "live" | "dead" | "none" {
  let text: string;
  try {
    text = readFileSync(join(dir, OWNER_FILE), "utf8");
  } catch {
    return "none";
  }
  const owner = parseOwner(text);
  if (owner === null) return "none";
  const state = ownerState(owner);
  if (state !== "foreign") return state;
  const started = Date.parse(owner.started_at);
  return Number.isFinite(started) && now - started > FOREIGN_CLAIM_MAX_AGE_MS ? "dead" : "live";
}

/**
 * The staging area's claim directories left by a run killed while claiming: owner gone, or no marker
 * and older than a minute (a claim takes milliseconds).
 */
export function deadClaims(runsDir: string, now = Date.now()): string[] {
  const staging = join(runsDir, RUNS_NAMES.staging);
  let names: string[];
  try {
    names = readdirSync(staging);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(CLAIM_PREFIX))
    .map((name) => join(staging, name))
    .filter((path) => {
      const state = claimState(path, now);
      return state === "dead" || (state === "none" && olderThan(path, 60_000, now));
    });
}

/** Whether `path`'s mtime is more than `ms` before `now` (false when it is gone). */
export function olderThan(path: string, ms: number, now = Date.now()): boolean {
  try {
    return now - statSync(path).mtimeMs > ms;
  } catch {
    return false;
  }
}
