// Directory swap: the one policy for a directory written as a whole (a cassette, a shard bundle).
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { syncDirectory } from "./replace.ts";

export interface SwapOptions {
  /**
   * true: an existing `dir` is moved aside first and removed after the new one is in place. false: an
   * existing non-empty `dir` makes the move fail (ENOTEMPTY/EEXIST) and nothing is replaced.
   */
  readonly replace: boolean;
}

const SWAP_SIBLING = /^\..+\.(?:tmp|old)-[0-9a-f]{12}$/;

/** Whether a directory entry's name is one a swap in flight (or one that crashed) leaves beside its target. */
export function isSwapSibling(name: string): boolean {
  return SWAP_SIBLING.test(name);
}

/** The hidden sibling names a swap of `dir` uses: the staging directory and where the old one goes. */
function siblings(dir: string): { staging: string; old: string } {
  const suffix = randomBytes(6).toString("hex");
  const at = (kind: string): string => join(dirname(dir), `.${basename(dir)}.${kind}-${suffix}`);
  return { staging: at("tmp"), old: at("old") };
}

/**
 * Builds a directory in a hidden sibling staging directory (`fill` writes into it), then renames it to
 * `dir` whole and fsyncs the parent: a reader sees the old directory or the new one, never a half-written
 * one. On any failure the staging directory is removed and the error rethrown (the system's, for the
 * caller to name). `fill` fsyncs what it writes when the content must survive a power cut. Returns `dir`.
 */
export async function swapDirectory(
  dir: string,
  fill: (staging: string) => Promise<void>,
  options: SwapOptions,
): Promise<string> {
  await mkdir(dirname(dir), { recursive: true });
  const { staging, old } = siblings(dir);
  await mkdir(staging);
  try {
    await fill(staging);
    const hadOld = options.replace && existsSync(dir);
    if (hadOld) await rename(dir, old);
    await rename(staging, dir);
    if (hadOld) await rm(old, { recursive: true, force: true });
    await syncDirectory(dirname(dir));
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

/** `swapDirectory` for synchronous callers (no fsync of the parent: for content that can be rewritten). */
export function swapDirectorySync(dir: string, fill: (staging: string) => void, options: SwapOptions): string {
  mkdirSync(dirname(dir), { recursive: true });
  const { staging, old } = siblings(dir);
  mkdirSync(staging);
  try {
    fill(staging);
    const hadOld = options.replace && existsSync(dir);
    if (hadOld) renameSync(dir, old);
    renameSync(staging, dir);
    if (hadOld) rmSync(old, { recursive: true, force: true });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  return dir;
}
