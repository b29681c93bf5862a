import { createReadStream } from "node:fs";
import { appendFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { createInterface } from "node:readline";
import { EvalError } from "@eval/errors";
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
 * Appends one transcript line to `path` (creating its directory), in a single write so concurrent
 * writers of whole lines do not interleave. Returns the line written.
 */
export async function writeTranscriptJsonl(path: string, transcript: Transcript, invocation: TranscriptInvocation = {}): Promise<string> {
  const line = transcriptLine(transcript, invocation);
  try {
    await mkdir(dirname(path), { recursive: true });
    await appendFile(path, line, { encoding: "utf8", mode: 0o600 });
  } catch (error) {
    throw new EvalError("EVAL_IO", `cannot write transcript ${path}: ${(error as Error).message}`, { cause: error });
  }
  return line;
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
        throw new EvalError("EVAL_TRANSCRIPT_INVALID", `${path}:${lineNumber} is not JSON`, { hint: "transcript JSONL holds one JSON document per line" });
      }
      const result = safeParseWire(TranscriptSchema, value);
      if (!result.success) {
        throw new EvalError("EVAL_TRANSCRIPT_INVALID", `${path}:${lineNumber}: ${formatIssues(result.issues)}`, { hint: "run `evalgate schemas transcript` for the format" });
      }
      transcripts.push(result.data);
    }
  } catch (error) {
    if (error instanceof EvalError) throw error;
    throw new EvalError("EVAL_IO", `cannot read transcript ${path}: ${(error as Error).message}`, { cause: error });
  }
  return transcripts;
}
