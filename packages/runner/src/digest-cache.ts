// Digests kept between runs, keyed on what a user cannot restore after changing a file (see `fileKey`):
// the command SUT's view (`<state>/file-digests.json`) and the case trees (`<state>/case-trees.sealed`,
// sealed with the cache key, since a forged entry there would pass a changed case).
import { readFileSync, mkdirSync } from "node:fs";
import type { KeyObject } from "node:crypto";
import { dirname } from "node:path";
import type { FileDigestCache } from "@eval/hashing";
import { replaceFileSync } from "@eval/durable-fs";
import { sealEntry, splitEntry, verifyEntry } from "@eval/cache";

/** Entries a digest cache keeps (the newest): about 100 bytes each for a file, a few hundred for a case tree. */
const DIGEST_CACHE_ENTRIES = 200_000;

/** A seal: the cache's MAC key and the label its MAC is taken under (never a cache key). */
export interface DigestCacheSeal {
  readonly key: KeyObject;
  readonly label: string;
}

/** The body of the file at `path`, or null when it is missing, unreadable, or (sealed) fails its MAC. */
function readBody(path: string, seal: DigestCacheSeal | undefined): string | null {
  try {
    const bytes = readFileSync(path);
    if (seal === undefined) return bytes.toString("utf8");
    const stored = splitEntry(bytes);
    return stored.kind === "sealed" && verifyEntry(seal.key, seal.label, stored) ? stored.body.toString("utf8") : null;
  } catch {
    return null;
  }
}

function parseEntries(body: string | null): Map<string, string> {
  try {
    const parsed = JSON.parse(body ?? "null") as { version?: unknown; entries?: unknown } | null;
    if (parsed?.version === 1 && parsed.entries !== null && typeof parsed.entries === "object")
      return new Map(
        Object.entries(parsed.entries as Record<string, unknown>).filter(
          (entry): entry is [string, string] => typeof entry[1] === "string",
        ),
      );
  } catch {
    // A damaged cache: every entry is computed again.
  }
  return new Map();
}

/**
 * The persistent digest cache at `path` (missing, damaged or, with `seal`, unsealed or forged: an empty
 * cache; saving is best effort and writes only when an entry changed). `save(key)` seals with `key`
 * instead of the seal's (a key created only once the run is sure to start).
 */
export function loadDigestCache(
  path: string,
  seal?: DigestCacheSeal,
): { entries: FileDigestCache; save(key?: KeyObject): void } {
  const entries = parseEntries(readBody(path, seal));
  let changed = false;
  return {
    entries: {
      get: (key) => entries.get(key),
      set(key, digest) {
        entries.delete(key);
        entries.set(key, digest);
        changed = true;
      },
    },
    save(key) {
      if (!changed) return;
      const body = JSON.stringify({
        version: 1,
        entries: Object.fromEntries([...entries].slice(-DIGEST_CACHE_ENTRIES)),
      });
      try {
        mkdirSync(dirname(path), { recursive: true });
        // Digests it can recompute: no fsync on the path of every run.
        replaceFileSync(path, seal === undefined ? body : sealEntry(key ?? seal.key, seal.label, body), {
          mode: 0o600,
          survives: "crash",
        });
      } catch {
        // A cache that cannot be written only costs the next run a re-read.
      }
    },
  };
}
