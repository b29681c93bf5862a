// The state directory's content-addressed blob store (`<state dir>/blobs/<2 hex>/<62 hex>`): bytes kept
// by their BLAKE3 digest, written once, checked against the digest on every read.
import { existsSync, mkdirSync, readFileSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { ioError } from "@eval/errors";
import { blake3Digest } from "@eval/hashing";
import { replaceFileSync } from "@eval/durable-fs";

function blobPath(blobsDir: string, digest: string): string {
  const hex = digest.replace(/^blake3:/, "");
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`not a blake3 digest: ${digest}`);
  return join(blobsDir, hex.slice(0, 2), hex.slice(2));
}

/**
 * Stores `content` under `digest` (its BLAKE3) unless it is there already, in which case the stored blob's
 * mtime is moved to now: `gc` keeps every blob touched since the oldest live run began (blob-gc.ts).
 */
export function writeBlob(blobsDir: string, digest: string, content: Buffer): void {
  const path = blobPath(blobsDir, digest);
  if (touchBlob(path)) return;
  try {
    mkdirSync(join(path, ".."), { recursive: true });
    replaceFileSync(path, content, { mode: 0o600, survives: "crash" });
  } catch (error) {
    throw ioError(error, "cannot write the captured file", path);
  }
}

/** Whether the blob at `path` was there to be touched (any error but "absent" counts as there, as before). */
function touchBlob(path: string): boolean {
  try {
    const now = new Date();
    utimesSync(path, now, now);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ENOENT";
  }
}

/** The bytes stored under `digest`, or null when they are missing or no longer match it. */
export function readBlob(blobsDir: string, digest: string): Buffer | null {
  try {
    const content = readFileSync(blobPath(blobsDir, digest));
    return blake3Digest(content) === digest ? content : null;
  } catch {
    return null;
  }
}

/** Whether bytes are stored under `digest` (not checked against it: `readBlob` does that). */
export function hasBlob(blobsDir: string, digest: string): boolean {
  return existsSync(blobPath(blobsDir, digest));
}
