// The head pointer: the newest record's file, written under the append lock by every append, so an
// append whose caller knows nobody else wrote to the runs directory finds the head without listing it.
import { readFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { replaceFile } from "@eval/durable-fs";
import { RUNS_NAMES } from "@eval/state-layout";

/** `<runs>/.index/head.json`: a directory, so verification (which reads only top-level files) never sees it. */
const { index: INDEX_DIR, head: HEAD_FILE } = RUNS_NAMES;

export interface HeadPointer {
  /** The newest record's file name. */
  readonly file: string;
  /** Records in the chain (the newest one's sequence + 1). */
  readonly records: number;
}

/** The pointer, or null when there is none or it is not one (the caller then lists the directory). */
export function readHeadPointer(runsDir: string): HeadPointer | null {
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(join(runsDir, INDEX_DIR, HEAD_FILE), "utf8"));
  } catch {
    return null;
  }
  const pointer = value as Partial<HeadPointer>;
  if (typeof pointer.file !== "string" || !Number.isSafeInteger(pointer.records) || (pointer.records ?? 0) < 1)
    return null;
  return { file: pointer.file, records: pointer.records! };
}

/** Replaces the pointer atomically (temp file and rename inside `.index`; no fsync: a lost pointer only makes the next append list). Called under the append lock. */
export async function writeHeadPointer(runsDir: string, pointer: HeadPointer): Promise<void> {
  const dir = join(runsDir, INDEX_DIR);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await replaceFile(join(dir, HEAD_FILE), `${JSON.stringify(pointer)}\n`, { mode: 0o600, survives: "crash" });
}

/**
 * Removes the pointer. An append calls this before it writes its record and writes the new pointer
 * after, so a crash or a failed write in between leaves no pointer (the next append lists), never a
 * stale one.
 */
export async function removeHeadPointer(runsDir: string): Promise<void> {
  await rm(join(runsDir, INDEX_DIR, HEAD_FILE), { force: true });
}
