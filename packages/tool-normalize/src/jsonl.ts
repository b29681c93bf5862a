import { createReadStream } from "node:fs";
import { appendFile, mkdir, open, readdir } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { dirname, join } from "node:path";
import { createInterface } from "node:readline";
import { EvalError, ioError } from "@eval/errors";
import { formatIssues, parseWire, safeParseWire, TranscriptSchema } from "@eval/models";
import type { Transcript } from "@eval/models";

/** Which case invocation a transcript line belongs to. */
export interface TranscriptInvocation {
  readonly case_id?: string;
  /** `bench:<run-start>:<task-class>:<case-id>` (EVALGATE_BENCH_INVOCATION_TAG). */
  readonly invocation_tag?: string;
  /** When the line was written; defaults to now. */
  readonly written_at?: string;
}

/** The transcript stamped with its invocation, validated and frozen: what one JSONL line holds. */
export function stampTranscript(transcript: Transcript, invocation: TranscriptInvocation = {}): Transcript {
  return parseWire(TranscriptSchema, {
    ...transcript,
    case_id: invocation.case_id ?? transcript.case_id,
    invocation_tag: invocation.invocation_tag ?? transcript.invocation_tag,
    written_at: invocation.written_at ?? new Date().toISOString(),
  });
}

/** One line of transcript JSONL (with its newline): one schema-versioned document per case invocation. */
export function transcriptLine(transcript: Transcript, invocation: TranscriptInvocation = {}): string {
  return `${JSON.stringify(stampTranscript(transcript, invocation))}\n`;
}

/**
 * Appends one transcript line to `path` (creating its directory): one write on an append-mode file, so
 * concurrent writers of whole lines do not interleave, then fsync. A line never extends a torn one: a
 * file whose last byte is not a newline (a write cut short by a full disk or a kill) gets one first, so
 * the fragment stays a line of its own (readers name it; `repairTranscriptJsonl` blanks it) and this line
 * stays whole. A write cut short here ends its fragment with a newline when the disk lets it, and throws
 * EVAL_IO naming the file. Returns the line written.
 */
export async function writeTranscriptJsonl(
  path: string,
  transcript: Transcript,
  invocation: TranscriptInvocation = {},
): Promise<string> {
  const line = transcriptLine(transcript, invocation);
  let handle: FileHandle | null = null;
  try {
    await mkdir(dirname(path), { recursive: true });
    handle = await open(path, "a+", 0o600);
    const bytes = Buffer.from(`${(await endsTorn(handle)) ? "\n" : ""}${line}`, "utf8");
    const { bytesWritten } = await handle.write(bytes);
    if (bytesWritten < bytes.length) {
      await handle.write("\n").catch(() => {});
      throw Object.assign(new Error(`wrote ${bytesWritten} of ${bytes.length} bytes`), { code: "ENOSPC" });
    }
    await handle.sync();
  } catch (error) {
    // A failed write may still have put part of the line down: end it, so the next line starts clean.
    if (handle !== null && (await endsTorn(handle).catch(() => false))) await handle.write("\n").catch(() => {});
    throw ioError(error, "cannot append the transcript line to", path);
  } finally {
    await handle?.close().catch(() => {});
  }
  return line;
}

/** Whether a non-empty file's last byte is not a newline: its last line was cut short. */
async function endsTorn(handle: FileHandle): Promise<boolean> {
  const { size } = await handle.stat();
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  await handle.read(last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/**
 * Whether a JSONL line is torn: not JSON (a write cut short, or bytes damaged). Whole lines that parse
 * but do not validate are a different fault (EVAL_TRANSCRIPT_INVALID names them).
 */
function isTorn(line: string): boolean {
  try {
    JSON.parse(line);
    return false;
  } catch {
    return true;
  }
}

export interface JsonlRepair {
  readonly path: string;
  /** 1-based numbers of the lines that were torn and are now blank. */
  readonly blankedLines: readonly number[];
  /** Where the torn lines' bytes were kept (`<path>.torn`), or null when there were none. */
  readonly tornPath: string | null;
}

/**
 * The documented repair of a transcript JSONL file with torn lines: each complete line (newline
 * ended) that is not JSON is copied, with its line number, to `<path>.torn` and then overwritten in
 * place with spaces, so every reader skips it. In place and same length: writers only ever append,
 * so no line a concurrent writer adds is lost. An unterminated last line is left alone (the next
 * append ends it). Returns what was repaired.
 */
async function repairTranscriptJsonl(path: string): Promise<JsonlRepair> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r+");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { path, blankedLines: [], tornPath: null };
    throw ioError(error, "cannot open", path);
  }
  try {
    const text = await handle.readFile();
    const torn: { line: number; offset: number; bytes: Buffer }[] = [];
    let offset = 0;
    for (let line = 1; ; line += 1) {
      const end = text.indexOf(0x0a, offset);
      if (end === -1) break;
      const bytes = text.subarray(offset, end);
      if (bytes.toString("utf8").trim() !== "" && isTorn(bytes.toString("utf8"))) torn.push({ line, offset, bytes });
      offset = end + 1;
    }
    if (torn.length === 0) return { path, blankedLines: [], tornPath: null };
    const tornPath = `${path}.torn`;
    await appendFile(
      tornPath,
      torn.map((entry) => `${JSON.stringify({ line: entry.line, text: entry.bytes.toString("utf8") })}\n`).join(""),
      { mode: 0o600 },
    );
    for (const entry of torn)
      await handle.write(Buffer.alloc(entry.bytes.length, 0x20), 0, entry.bytes.length, entry.offset);
    await handle.sync();
    return { path, blankedLines: torn.map((entry) => entry.line), tornPath };
  } catch (error) {
    throw ioError(error, "cannot repair", path);
  } finally {
    await handle.close();
  }
}

/** Reads a transcript JSONL file back, validating every line; a bad line is an error naming its number. */
export async function readTranscriptJsonl(path: string): Promise<Transcript[]> {
  const transcripts: Transcript[] = [];
  let lineNumber = 0;
  try {
    const lines = createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Infinity });
    for await (const line of lines) {
      lineNumber += 1;
      if (line.trim() === "") continue;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        throw new EvalError(
          "EVAL_TRANSCRIPT_INVALID",
          `${path}:${lineNumber} is not JSON (a torn line: a write cut short, or damaged bytes)`,
          {
            hint: "transcript JSONL holds one JSON document per line; `evalgate gc` keeps a torn line's bytes in <file>.torn and blanks it",
          },
        );
      }
      const result = safeParseWire(TranscriptSchema, value);
      if (!result.success) {
        throw new EvalError("EVAL_TRANSCRIPT_INVALID", `${path}:${lineNumber}: ${formatIssues(result.issues)}`, {
          hint: "run `evalgate schemas transcript` for the format",
        });
      }
      transcripts.push(result.data);
    }
  } catch (error) {
    if (error instanceof EvalError) throw error;
    throw new EvalError("EVAL_IO", `cannot read transcript ${path}: ${(error as Error).message}`, { cause: error });
  }
  return transcripts;
}

/** Repairs every `*.jsonl` directly in `dir` (a state directory's `transcripts/`); the files that had torn lines. */
export async function repairTranscriptDirectory(dir: string): Promise<JsonlRepair[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw ioError(error, "cannot list", dir);
  }
  const repairs: JsonlRepair[] = [];
  for (const name of names.filter((entry) => entry.endsWith(".jsonl")).sort()) {
    const repair = await repairTranscriptJsonl(join(dir, name));
    if (repair.blankedLines.length > 0) repairs.push(repair);
  }
  return repairs;
}
