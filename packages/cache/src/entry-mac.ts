import { createSecretKey, randomBytes, timingSafeEqual } from "node:crypto";
import type { KeyObject } from "node:crypto";
import type { Stats } from "node:fs";
import { link, mkdir, open, unlink } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { isInside } from "@eval/durable-fs";
import { EvalError, ioError } from "@eval/errors";
import { hmacSha256 } from "@eval/hashing";
import { STATE_NAMES } from "@eval/state-layout";

/**
 * Entry authentication for the score cache.
 *
 * An entry file is two lines: the entry's JSON exactly as written, then `hmac-sha256:<64 hex>`, the
 * HMAC-SHA256 under the cache's secret key of a domain tag, the cache key the entry is filed under, and
 * those JSON bytes. The MAC is checked over the stored bytes before anything parses them, so there is no
 * canonicalization to get wrong; binding the cache key means a valid entry copied to another key's path
 * does not verify there. JSON.stringify never emits a raw newline, so the first newline ends the entry.
 */

/** Temporary key files are `<keyPath>.tmp-<pid>-<hex>`, beside the key file (link() needs one filesystem). */
export const KEY_TEMP_INFIX = ".tmp-";
const KEY_TEXT = /^([0-9a-f]{64})\n?$/;
const MAC_DOMAIN = "evalgate.cache_entry_mac.v1";
const MAC_PREFIX = "hmac-sha256:";
const MAC_LINE = /^hmac-sha256:([0-9a-f]{64})\n$/;
const MAX_KEY_FILE_BYTES = 1024;
const RECOVERY = "delete it to start over with a new key (every cached score is then recomputed once)";

/** `<dir>/../cache.key`: in the state directory beside the cache, never inside it. */
export function defaultKeyPath(dir: string): string {
  return resolve(dir, "..", STATE_NAMES.cacheKey);
}

/** The key must not live in the cache directory: copying, sharing or uploading a cache must never carry its key. */
export function assertKeyOutside(dir: string, keyPath: string): void {
  if (!isInside(dir, keyPath)) return;
  throw new EvalError("EVAL_USAGE", `the cache key file ${keyPath} must not be inside the cache directory ${dir}`, {
    hint: "keep it beside the cache, as the default <dir>/../cache.key does, so a copy of the cache never includes its key",
  });
}

/** The stored bytes of an entry, split into the JSON and its MAC (if it has a MAC line at all). */
export type StoredEntry =
  | { readonly kind: "sealed"; readonly body: Buffer; readonly mac: Buffer }
  | { readonly kind: "unsealed"; readonly body: Buffer }
  | { readonly kind: "malformed"; readonly reason: string };

export function splitEntry(bytes: Buffer): StoredEntry {
  const newline = bytes.indexOf(0x0a);
  // No MAC line: an entry from before entries were authenticated (`<json>\n`), or a truncated file.
  if (newline === -1 || newline === bytes.length - 1)
    return { kind: "unsealed", body: newline === -1 ? bytes : bytes.subarray(0, newline) };
  const match = MAC_LINE.exec(bytes.subarray(newline + 1).toString("latin1"));
  if (match === null) return { kind: "malformed", reason: "the line after the entry is not hmac-sha256:<64 hex>" };
  return { kind: "sealed", body: bytes.subarray(0, newline), mac: Buffer.from(match[1]!, "hex") };
}

/** The file content for `body` (one line of JSON) filed under `cacheKey`; bytes for bytes (a large body is not copied as text). */
export function sealEntry(secret: KeyObject, cacheKey: string, body: string): string;
export function sealEntry(secret: KeyObject, cacheKey: string, body: Buffer): Buffer;
export function sealEntry(secret: KeyObject, cacheKey: string, body: string | Buffer): string | Buffer {
  const line = `\n${MAC_PREFIX}${entryMac(secret, cacheKey, body).toString("hex")}\n`;
  return typeof body === "string" ? `${body}${line}` : Buffer.concat([body, Buffer.from(line)]);
}

export function verifyEntry(secret: KeyObject, cacheKey: string, entry: { body: Buffer; mac: Buffer }): boolean {
  return timingSafeEqual(entryMac(secret, cacheKey, entry.body), entry.mac);
}

function entryMac(secret: KeyObject, cacheKey: string, body: string | Buffer): Buffer {
  // The cache key is `blake3:<64 hex>` (checked by the caller), so the newline after it is unambiguous.
  return hmacSha256(secret, `${MAC_DOMAIN}\n${cacheKey}\n`, body);
}

/**
 * Reads the key file; null when it does not exist. Anything else wrong with it is an EvalError, never a
 * silent new key: evalgate only ever writes a complete key (temp file, fsync, link), so a malformed,
 * foreign or exposed key file means something else touched it, and replacing it quietly would hide that
 * (and quietly turn every cached score into a miss).
 */
export async function readMacKey(keyPath: string): Promise<KeyObject | null> {
  let handle;
  try {
    handle = await open(keyPath, "r");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new EvalError("EVAL_IO", `cannot read the cache key file ${keyPath}: ${(error as Error).message}`, {
      hint: RECOVERY,
      cause: error,
    });
  }
  try {
    const info = await handle.stat();
    if (!info.isFile())
      throw new EvalError("EVAL_IO", `the cache key file ${keyPath} is not a regular file`, { hint: RECOVERY });
    assertPrivate(keyPath, info);
    const text = info.size > MAX_KEY_FILE_BYTES ? "" : await handle.readFile("utf8");
    const match = KEY_TEXT.exec(text);
    if (match === null) {
      throw new EvalError(
        "EVAL_IO",
        `the cache key file ${keyPath} is malformed: not 64 hex digits (32 bytes) and a newline`,
        {
          hint: `evalgate never writes such a file, so something else changed it; ${RECOVERY}`,
        },
      );
    }
    return createSecretKey(Buffer.from(match[1]!, "hex"));
  } finally {
    await handle.close();
  }
}

/**
 * Reads the key file, creating it first if it does not exist. Race-free across processes: each writes a
 * complete key to its own temporary file and hard-links it into place, which fails if the key file already
 * exists; every process then reads whatever key file won, so all of them use one key.
 */
export async function loadOrCreateMacKey(keyPath: string): Promise<KeyObject> {
  for (let attempt = 0; ; attempt += 1) {
    const existing = await readMacKey(keyPath);
    if (existing !== null) return existing;
    // Only a key path that link() finds taken but open() finds missing gets here repeatedly: a dangling
    // symbolic link, or a key file deleted again each time between our link and our read.
    if (attempt === 3) {
      throw new EvalError(
        "EVAL_IO",
        `cannot create the cache key file ${keyPath}: it exists for link() but not for open()`,
        {
          hint: "is it a dangling symbolic link? remove it, or point keyPath elsewhere",
        },
      );
    }
    await createKeyFile(keyPath);
  }
}

async function createKeyFile(keyPath: string): Promise<void> {
  const temp = `${keyPath}${KEY_TEMP_INFIX}${process.pid}-${randomBytes(6).toString("hex")}`;
  try {
    await mkdir(dirname(keyPath), { recursive: true });
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(`${randomBytes(32).toString("hex")}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, keyPath); // fails if the key file exists, unlike rename()
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error; // else another process won the race: use its key
    }
  } catch (error) {
    throw ioError(error, "cannot create the cache key file", keyPath);
  } finally {
    await unlink(temp).catch(() => {});
  }
}

/** Like ssh with its private keys: a key another user owns, or others may read or change, is not a secret. */
function assertPrivate(keyPath: string, info: Stats): void {
  if (process.platform === "win32") return;
  const uid = process.getuid?.();
  if (uid !== undefined && info.uid !== uid) {
    throw new EvalError(
      "EVAL_IO",
      `the cache key file ${keyPath} is owned by uid ${info.uid}, not by this user (uid ${uid}); refusing a key someone else may know`,
      {
        hint: `chown it if it really is yours; otherwise ${RECOVERY}`,
      },
    );
  }
  if ((info.mode & 0o077) !== 0) {
    throw new EvalError(
      "EVAL_IO",
      `the cache key file ${keyPath} has mode 0${(info.mode & 0o777).toString(8)}: other users may read or change it`,
      {
        hint: `chmod 600 ${keyPath} if nobody else can have read it; otherwise ${RECOVERY}`,
      },
    );
  }
}
