import { appendFile, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { SutInvocation, Transcript } from "@eval/models";
import type { StreamLogOption } from "@eval/tool-normalize";
import { summarizeTranscript, writeTranscriptJsonl } from "@eval/tool-normalize";
import { transcriptFile, transcriptStreamsDir } from "@eval/state-layout";

/** Where and how a SUT that drives an agent keeps its evidence of each case invocation. */
export interface TranscriptLogOptions {
  /** `<state>/transcripts`: one `<task-class>.jsonl` transcript line per case invocation, always. */
  readonly transcriptsDir: string;
  /** The extra stream log beside it: none, a few summary lines, or the CLI's raw stream. */
  readonly streamLog?: StreamLogOption;
}

/** A file-name-safe form of the invocation tag (`bench:<iso>:<task>:<case>`). */
function tagFileName(tag: string): string {
  return tag.replace(/[^A-Za-z0-9._-]+/g, "_");
}

/**
 * Writes the transcript line for one case invocation, and the optional stream log
 * (`streams/<tag>.jsonl` raw, or `streams/<tag>.summary.txt`). Secrets were scrubbed from the stream
 * and transcript before they reach here (the backend redacts them).
 */
export async function logTranscript(
  options: TranscriptLogOptions,
  invocation: SutInvocation,
  transcript: Transcript,
  rawStream: string,
): Promise<void> {
  await writeTranscriptJsonl(transcriptFile(options.transcriptsDir, invocation.benchCase.task_class), transcript, {
    case_id: invocation.benchCase.case_id,
    invocation_tag: invocation.invocationTag,
  });
  const mode = options.streamLog ?? false;
  if (mode === false) return;
  const streams = transcriptStreamsDir(options.transcriptsDir);
  await mkdir(streams, { recursive: true });
  const base = join(streams, tagFileName(invocation.invocationTag));
  if (mode === "raw") await writeFile(`${base}.jsonl`, rawStream, { mode: 0o600 });
  else await appendFile(`${base}.summary.txt`, `${summarizeTranscript(transcript).join("\n")}\n`, { mode: 0o600 });
}
