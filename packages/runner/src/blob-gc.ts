// gc of the blob store: the captured-workspace blobs that no detail file references (recorded runs, live
// runs, merges: every `runs/<run-id>/cases/*.json` on disk), never one a live run may still be about to reference.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { processAlive } from "@eval/durable-fs";
import { caseDetailsDir } from "@eval/state-layout";
import { claimState, OWNER_FILE } from "./run-owner.ts";

/**
 * A blob touched within this long before gc began is kept whatever refers to it: a run whose claim gc did not
 * see (claimed after gc listed them) touches or writes its blobs after that.
 */
const BLOB_GRACE_MS = 60_000;
const DIGEST_REFERENCE = /"digest"\s*:\s*"(blake3:[0-9a-f]{64})"/g;
const BLOB_NAME = /^[0-9a-f]{62}$/;
/** A blob a gc moved aside (`<name>.gc-<pid>`) and, if that gc was killed, never removed nor put back. */
const ASIDE_NAME = /^([0-9a-f]{62})\.gc-([0-9]+)$/;

export interface BlobSweep {
  readonly removedBlobs: number;
  readonly freedBytes: number;
}

/**
 * Removes the unreferenced blobs last written or reused before `keepSince(runsDir)`. A live run writes or
 * touches (writeBlob) every blob it captures before its detail file names it, after its claim's start, so
 * its blobs are kept until its details land; a blob is moved aside, rechecked and only then removed, so a
 * run reusing it at that moment gets it back (or, once it is gone, writes it anew).
 */
export function collectBlobs(runsDir: string, blobsDir: string, now = Date.now()): BlobSweep {
  const since = keepSince(runsDir, now);
  const referenced = referencedDigests(runsDir);
  let removedBlobs = 0;
  let freedBytes = 0;
  for (const prefix of listNames(blobsDir)) {
    putBackLeftovers(join(blobsDir, prefix));
    for (const name of listNames(join(blobsDir, prefix))) {
      if (!BLOB_NAME.test(name) || referenced.has(`blake3:${prefix}${name}`)) continue;
      const freed = removeIfStale(join(blobsDir, prefix, name), since);
      if (freed === null) continue;
      removedBlobs += 1;
      freedBytes += freed;
    }
  }
  return { removedBlobs, freedBytes };
}

/** The oldest start among live claims on detail directories, and at most now less the grace. */
function keepSince(runsDir: string, now: number): number {
  let since = now - BLOB_GRACE_MS;
  for (const runId of listNames(runsDir)) {
    const dir = join(runsDir, runId);
    if (runId.startsWith(".") || claimState(dir, now) !== "live") continue;
    const started = mtimeOf(join(dir, OWNER_FILE));
    if (started !== null) since = Math.min(since, started);
  }
  return since;
}

/** Every blob digest any detail file on disk names. */
function referencedDigests(runsDir: string): Set<string> {
  const digests = new Set<string>();
  for (const runId of listNames(runsDir)) {
    if (runId.startsWith(".")) continue;
    const casesDir = caseDetailsDir(runsDir, runId);
    for (const file of listNames(casesDir)) {
      if (!file.endsWith(".json")) continue;
      let text: string;
      try {
        text = readFileSync(join(casesDir, file), "utf8");
      } catch {
        continue;
      }
      for (const match of text.matchAll(DIGEST_REFERENCE)) digests.add(match[1]!);
    }
  }
  return digests;
}

/** Removes the blob at `path` unless it was touched at or after `since`; its size when removed, else null. */
function removeIfStale(path: string, since: number): number | null {
  const mtime = mtimeOf(path);
  if (mtime === null || mtime >= since) return null;
  const aside = `${path}.gc-${process.pid}`;
  try {
    renameSync(path, aside);
  } catch {
    return null;
  }
  // A writeBlob between the check and the move touched the same inode: it is in use after all.
  const stat = statSync(aside);
  if (stat.mtimeMs >= since) {
    renameSync(aside, path);
    return null;
  }
  rmSync(aside, { force: true });
  return stat.size;
}

/**
 * Puts back the blobs a killed gc left moved aside (its pid is gone), so this pass judges them like any
 * other: a run may have reused one in the moment before the kill. A leftover whose blob was written anew
 * meanwhile holds the same bytes (blobs are named by their digest) and is removed.
 */
function putBackLeftovers(dir: string): void {
  for (const name of listNames(dir)) {
    const match = ASIDE_NAME.exec(name);
    if (match === null) continue;
    // The name holds a pid only: a reused pid keeps the leftover until that process is gone too.
    if (processAlive(Number(match[2]))) continue;
    const aside = join(dir, name);
    const blob = join(dir, match[1]!);
    try {
      if (existsSync(blob)) rmSync(aside, { force: true });
      else renameSync(aside, blob);
    } catch {
      // Another gc got to it first.
    }
  }
}

function mtimeOf(path: string): number | null {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return null;
  }
}

function listNames(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
