import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { StringDecoder } from "node:string_decoder";
import { EvalError } from "@eval/errors";
import type { Transcript, TranscriptFormat } from "@eval/models";
import { TranscriptBuilder } from "./builder.ts";
import { claudeSessionJsonl, claudeStreamJson } from "./parsers/claude.ts";
import { codexExecJson, codexRolloutJsonl } from "./parsers/codex.ts";
import { isObject } from "./parsers/fields.ts";
import type { EventHandler, JsonObject } from "./parsers/fields.ts";
import { copilotEventsJsonl, geminiStreamJson } from "./parsers/gemini-copilot.ts";
import { acpEventType, copilotAcp } from "./parsers/acp.ts";
import { codexAppServer, jsonRpcEventType } from "./parsers/codex-app-server.ts";
import { piJson } from "./parsers/pi.ts";
import type { Provider } from "./tool-table.ts";

export type { TranscriptFormat };

interface FormatSpec {
  readonly provider: Provider;
  readonly handler: EventHandler;
  /** What an event's type is called in this format (default: its `type` field); undefined = no type. */
  readonly eventType?: (event: JsonObject) => string | undefined;
}

function typeField(event: JsonObject): string | undefined {
  return typeof event.type === "string" ? event.type : undefined;
}

const FORMATS: Readonly<Record<TranscriptFormat, FormatSpec>> = {
  "claude-stream-json": { provider: "claude-code", handler: claudeStreamJson },
  "claude-session-jsonl": { provider: "claude-code", handler: claudeSessionJsonl },
  "codex-exec-json": { provider: "codex", handler: codexExecJson },
  "codex-rollout-jsonl": { provider: "codex", handler: codexRolloutJsonl },
  "gemini-stream-json": { provider: "gemini", handler: geminiStreamJson },
  "copilot-events-jsonl": { provider: "copilot", handler: copilotEventsJsonl },
  "pi-json": { provider: "pi", handler: piJson },
  "codex-app-server": { provider: "codex", handler: codexAppServer, eventType: jsonRpcEventType },
  "copilot-acp": { provider: "copilot", handler: copilotAcp, eventType: acpEventType },
};

export const TRANSCRIPT_FORMATS = Object.keys(FORMATS) as readonly TranscriptFormat[];

/** The formats each provider writes; the first is what `transcript import --provider` assumes. */
export const PROVIDER_FORMATS: Readonly<Record<Provider, readonly TranscriptFormat[]>> = {
  "claude-code": ["claude-session-jsonl", "claude-stream-json"],
  codex: ["codex-rollout-jsonl", "codex-exec-json", "codex-app-server"],
  copilot: ["copilot-events-jsonl", "copilot-acp"],
  gemini: ["gemini-stream-json"],
  pi: ["pi-json"],
};

function spec(format: TranscriptFormat): FormatSpec {
  return FORMATS[format];
}

export function providerOfFormat(format: TranscriptFormat): Provider {
  return FORMATS[format].provider;
}

/** A line longer than this is dropped (counted as unparseable) rather than held in memory. */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export interface TranscriptParserOptions {
  /**
   * Labels copied into `source.labels` (a file path, a case id...). `session_id`, `model` and
   * `cli_version` here also fill those source fields when the stream does not report them.
   */
  readonly source?: Readonly<Record<string, string>>;
}

export interface TranscriptParser {
  /** Feeds one JSONL line (without its newline). Tolerant: a bad line is counted as drift, never thrown. */
  push(line: string): void;
  /** Feeds raw output as it arrives; partial lines are buffered until their newline. */
  write(chunk: string): void;
  /** Flushes a buffered partial line (a truncated last line is tolerated) and returns the transcript. */
  end(): Transcript;
  /**
   * Lines seen, events of a type this format knows, and events it does not know (of an unknown
   * type, or with no type at all): none known, or more unknown than known, means the file is not
   * in this format.
   */
  readonly stats: { readonly lines: number; readonly recognized_events: number; readonly unrecognized_events: number };
}

/**
 * A streaming parser for one native format: feed it line by line as the agent prints, then `end()`.
 * Memory grows with the number of messages and tool calls kept (each cut to an excerpt), not with
 * the size of the stream.
 */
export function createTranscriptParser(
  format: TranscriptFormat,
  options: TranscriptParserOptions = {},
): TranscriptParser {
  const spec = FORMATS[format];
  if (spec === undefined) throw new Error(`unknown transcript format ${String(format)}`);
  const builder = new TranscriptBuilder(format, spec.provider, options.source ?? {});
  let buffered = "";
  let overlong = false;
  let lines = 0;
  let unrecognized = 0;
  let ended = false;
  let lastLineBroken = false;

  const push = (line: string): void => {
    if (ended) throw new Error("TranscriptParser.push after end()");
    if (line.trim() === "") return;
    lines += 1;
    let event: unknown;
    try {
      // A byte-order mark (Windows editors) or a CR (CRLF files) is not part of the event.
      event = JSON.parse(line.charCodeAt(0) === 0xfeff ? line.slice(1) : line);
    } catch {
      event = undefined;
    }
    if (!isObject(event)) {
      builder.unparseableLines += 1;
      lastLineBroken = true;
      return;
    }
    lastLineBroken = false;
    const type = (spec.eventType ?? typeField)(event);
    if (type === undefined) {
      // Drift in a log of this format, and evidence against the format when a log is not.
      builder.missingFields += 1;
      unrecognized += 1;
      return;
    }
    if (spec.handler(event, builder, type)) builder.recognizedEvents += 1;
    else {
      builder.unknownEvent(type);
      unrecognized += 1;
    }
  };

  const write = (chunk: string): void => {
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline !== -1; newline = chunk.indexOf("\n", start)) {
      const piece = chunk.slice(start, newline);
      if (overlong) {
        overlong = false;
        builder.unparseableLines += 1;
      } else push(buffered === "" ? piece : buffered + piece);
      buffered = "";
      start = newline + 1;
    }
    if (overlong) return;
    buffered += chunk.slice(start);
    if (buffered.length > MAX_LINE_CHARS) {
      buffered = "";
      overlong = true;
    }
  };

  return {
    push,
    write,
    end(): Transcript {
      if (!ended) {
        if (overlong) {
          builder.unparseableLines += 1;
          lastLineBroken = true;
        } else if (buffered !== "") push(buffered);
        buffered = "";
        builder.truncatedLastLine = lastLineBroken;
        ended = true;
      }
      return builder.build();
    },
    get stats() {
      return { lines, recognized_events: builder.recognizedEvents, unrecognized_events: unrecognized };
    },
  };
}

/**
 * Parses a native log file by streaming it (bounded memory, whatever its size).
 * Throws EVAL_IO when the file cannot be read, and EVAL_TRANSCRIPT_INVALID when not one line is an
 * event of `format` (the wrong format, or not a log at all).
 */
export async function parseTranscriptFile(
  format: TranscriptFormat,
  path: string,
  options: TranscriptParserOptions = {},
): Promise<Transcript> {
  const parser = createTranscriptParser(format, { source: { path, ...options.source } });
  const decoder = new StringDecoder("utf8");
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 }))
      parser.write(decoder.write(chunk as Buffer));
    parser.write(decoder.end());
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : (error as Error).message;
    throw new EvalError("EVAL_IO", `cannot read transcript ${path}: ${reason}`, { cause: error });
  }
  const transcript = parser.end();
  const { lines, recognized_events: recognized, unrecognized_events: unrecognized } = parser.stats;
  if (recognized === 0 || unrecognized > recognized) {
    const provider = spec(format).provider;
    throw new EvalError(
      "EVAL_TRANSCRIPT_INVALID",
      `${path} is not a ${format} log: ${recognized} of ${recognized + unrecognized} events are ${format} events (${lines} lines read, ${transcript.drift.unparseable_lines} not JSON)`,
      {
        hint: `check that the file is a ${provider} log; its formats: ${PROVIDER_FORMATS[provider].join(", ")} (pass --format if detection chose wrong)`,
        details: { path, format },
      },
    );
  }
  return transcript;
}

/**
 * Which of `provider`'s formats a file is in, judged from its first lines: each candidate parser
 * reads them, and the one that recognizes the most events (and meets the fewest unknown types) wins;
 * a tie goes to the provider's first format. A provider with one format needs no look.
 */
export async function detectTranscriptFormat(
  provider: Provider,
  path: string,
  sampleLines = 200,
): Promise<TranscriptFormat> {
  const candidates = PROVIDER_FORMATS[provider];
  if (candidates.length === 0) {
    throw new EvalError("EVAL_USAGE", `evalgate reads no native log format of ${provider}`, {
      hint: `providers with a log format: ${(Object.keys(PROVIDER_FORMATS) as Provider[]).filter((name) => PROVIDER_FORMATS[name].length > 0).join(", ")}`,
    });
  }
  if (candidates.length === 1) return candidates[0]!;
  const lines: string[] = [];
  const input = createReadStream(path, { encoding: "utf8" });
  try {
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      lines.push(line.length > MAX_SNIFF_LINE_CHARS ? line.slice(0, MAX_SNIFF_LINE_CHARS) : line);
      if (lines.length >= sampleLines) break;
    }
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === "ENOENT" ? "does not exist" : (error as Error).message;
    throw new EvalError("EVAL_IO", `cannot read transcript ${path}: ${reason}`, { cause: error });
  } finally {
    input.destroy();
  }
  let best = candidates[0]!;
  let bestScore = -Infinity;
  for (const format of candidates) {
    const parser = createTranscriptParser(format);
    for (const line of lines) parser.push(line);
    const score = parser.stats.recognized_events - parser.stats.unrecognized_events;
    if (score > bestScore) {
      best = format;
      bestScore = score;
    }
  }
  return best;
}

/** Long lines are cut when sniffing: a cut line simply does not count for any candidate. */
const MAX_SNIFF_LINE_CHARS = 1 << 20;
