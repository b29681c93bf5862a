// Accumulates one transcript from parsed events; every format parser feeds one of these.
import { parseWire, TRANSCRIPT_SCHEMA_VERSION, TranscriptSchema } from "@eval/models";
import type { Transcript, TranscriptFormat, TranscriptInput } from "@eval/models";
import { normalizeToolCall } from "./normalize.ts";
import type { Provider } from "./tool-table.ts";
import { sha256 } from "@eval/hashing";

/** Longest message text kept; longer text is cut and flagged `truncated`. */
export const MESSAGE_EXCERPT_CHARS = 2000;
/** Longest tool result kept. */
export const RESULT_EXCERPT_CHARS = 1000;
/** Longest string kept per tool input field (a whole file being written, a huge heredoc). */
export const INPUT_STRING_CHARS = 16_000;
/** At most this many error messages are kept (their total is not capped). */
export const MAX_ERRORS = 20;

export type Status = "ok" | "error" | "unknown";
type Role = "user" | "assistant" | "system";

interface ToolCallState {
  id: string | null;
  name: string;
  original_name: string;
  canonical: boolean;
  input: Record<string, unknown>;
  status: Status;
  result_excerpt: string | null;
}

interface MessageState {
  role: Role;
  text: string;
  truncated: boolean;
  blocks: Set<string>;
}

export interface UsageParts {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_tokens?: number | null;
  cache_write_tokens?: number | null;
}

const USAGE_KEYS = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"] as const;

/**
 * A copy of `text` that shares no memory with it. V8 may represent a slice as a view into its parent,
 * which would keep a whole multi-megabyte tool output alive for the sake of a 1 KB excerpt.
 */
function detached(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}

export function excerpt(text: string, limit: number): string {
  return text.length <= limit ? text : detached(`${text.slice(0, limit)}…`);
}

/** What identifies a streamed block for de-duplication, without holding a long block whole. */
function blockKey(text: string): string {
  return text.length <= 64 ? text : `sha256:${sha256(text).toString("base64")}`;
}

function boundInput(input: Record<string, unknown>): Record<string, unknown> {
  // fromEntries defines own properties, so a key such as "__proto__" stays data.
  return Object.fromEntries(
    Object.entries(input).map(([key, value]) => [
      key,
      typeof value === "string" && value.length > INPUT_STRING_CHARS ? excerpt(value, INPUT_STRING_CHARS) : value,
    ]),
  );
}

/** A token count from an unknown value: a non-negative integer, or undefined. */
export function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && value >= 0 && Number.isSafeInteger(Math.round(value))
    ? Math.round(value)
    : undefined;
}

/** A count fit for the wire (a non-negative safe integer), or null: sums of hostile values can overflow. */
function safeCount(value: number | null): number | null {
  return value !== null && value >= 0 && Number.isSafeInteger(Math.round(value)) ? Math.round(value) : null;
}

/** Flattens a tool result (a string, content blocks, or an object) into text. */
export function resultText(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) {
    return value
      .map((part) =>
        part !== null && typeof part === "object" && typeof (part as { text?: unknown }).text === "string"
          ? (part as { text: string }).text
          : typeof part === "string"
            ? part
            : JSON.stringify(part),
      )
      .join("\n");
  }
  if (typeof value === "object") {
    const record = value as Record<string, unknown>;
    if ("content" in record) return resultText(record.content);
    if (typeof record.text === "string") return record.text;
    if (typeof record.output === "string") return record.output;
  }
  return JSON.stringify(value);
}

export class TranscriptBuilder {
  readonly provider: Provider;
  readonly format: TranscriptFormat;
  sessionId: string | null = null;
  model: string | null = null;
  cliVersion: string | null = null;
  costUsd: number | null = null;
  recognizedEvents = 0;

  private readonly labels: Record<string, string>;
  private readonly messages: MessageState[] = [];
  private readonly messagesByKey = new Map<string, MessageState>();
  /** The message `delta()` is appending to, until something else happens. */
  private streaming: MessageState | null = null;
  private readonly calls: ToolCallState[] = [];
  private readonly callsById = new Map<string, ToolCallState>();
  private readonly pendingResults = new Map<string, { status: Status; text: string | null }>();
  private readonly perMessageUsage = new Map<string, UsageParts>();
  private reportedUsage: Required<UsageParts> | null = null;
  /** Open while the stream is inside a session (or turn) whose closing event reports or settles totals. */
  private awaitingClose = false;
  private turnCount: number | null = null;
  private reportedDurationMs: number | null = null;
  private firstTimestamp: number | null = null;
  private lastTimestamp: number | null = null;
  private readonly errors: string[] = [];
  private readonly invokedSkills: string[] = [];
  private readonly unknownEventTypes = new Map<string, number>();
  unparseableLines = 0;
  missingFields = 0;
  truncatedLastLine = false;

  constructor(format: TranscriptFormat, provider: Provider, labels: Readonly<Record<string, string>>) {
    this.format = format;
    this.provider = provider;
    this.labels = { ...labels };
  }

  unknownEvent(type: string): void {
    this.unknownEventTypes.set(type, (this.unknownEventTypes.get(type) ?? 0) + 1);
  }

  timestamp(value: unknown): void {
    if (typeof value !== "string" && typeof value !== "number") return;
    const ms = typeof value === "number" ? value : Date.parse(value);
    if (!Number.isFinite(ms)) return;
    if (this.firstTimestamp === null || ms < this.firstTimestamp) this.firstTimestamp = ms;
    if (this.lastTimestamp === null || ms > this.lastTimestamp) this.lastTimestamp = ms;
  }

  /**
   * Adds message text. Text with the same `key` (one streamed message) is joined; a block already
   * seen under that key (a streaming duplicate) is skipped. `join` is what goes between blocks.
   */
  message(role: Role, text: string, key?: string, join = "\n"): void {
    this.streaming = null;
    if (text === "") return;
    let state = key === undefined ? undefined : this.messagesByKey.get(key);
    if (state !== undefined && state.role === role) {
      const key = blockKey(text);
      if (state.blocks.has(key)) return;
      state.blocks.add(key);
      this.appendText(state, state.text === "" ? text : `${join}${text}`);
      return;
    }
    state = { role, text: "", truncated: false, blocks: new Set([blockKey(text)]) };
    this.appendText(state, text);
    this.messages.push(state);
    if (key !== undefined) this.messagesByKey.set(key, state);
  }

  /**
   * Appends streamed text to the message being streamed when it has this role; anything else in
   * between (another message, a tool call or result) ends that message, so the next delta starts one.
   */
  delta(role: Role, text: string): void {
    const open = this.streaming;
    if (open !== null && open.role === role) {
      this.appendText(open, text);
      return;
    }
    const state: MessageState = { role, text: "", truncated: false, blocks: new Set() };
    this.appendText(state, text);
    this.messages.push(state);
    this.streaming = state;
  }

  private appendText(state: MessageState, text: string): void {
    if (state.truncated) return;
    const room = MESSAGE_EXCERPT_CHARS - state.text.length;
    if (text.length <= room) {
      state.text += text;
      return;
    }
    state.text = detached(`${state.text}${text.slice(0, Math.max(0, room))}…`);
    state.truncated = true;
  }

  /**
   * Records a tool call, once per id: a second report of the same id (a streaming duplicate, or the
   * same call announced and then executed) updates it instead of adding another.
   */
  toolCall(id: string | null, name: string, input: unknown): void {
    this.streaming = null;
    if (name === "") {
      this.missingFields += 1;
      return;
    }
    const existing = id === null ? undefined : this.callsById.get(id);
    if (existing !== undefined) {
      if (input !== undefined && input !== null && Object.keys(existing.input).length === 0) {
        const normalized = normalizeToolCall(this.provider, { name: existing.original_name, input });
        existing.name = normalized.name;
        existing.canonical = normalized.canonical;
        existing.input = boundInput(normalized.input);
      }
      return;
    }
    const normalized = normalizeToolCall(this.provider, { name, input });
    const state: ToolCallState = {
      id,
      name: normalized.name,
      original_name: normalized.original_name,
      canonical: normalized.canonical,
      input: boundInput(normalized.input),
      status: "unknown",
      result_excerpt: null,
    };
    this.calls.push(state);
    if (id !== null) {
      this.callsById.set(id, state);
      const pending = this.pendingResults.get(id);
      if (pending !== undefined) {
        this.pendingResults.delete(id);
        this.applyResult(state, pending.status, pending.text);
      }
    }
  }

  /** Pairs a result with its call by id (a result may arrive before its call; it waits). */
  toolResult(id: string, status: Status, text: string | null): void {
    this.streaming = null;
    const call = this.callsById.get(id);
    if (call === undefined) {
      this.pendingResults.set(id, { status, text });
      return;
    }
    this.applyResult(call, status, text);
  }

  hasToolCall(id: string): boolean {
    return this.callsById.has(id);
  }

  private applyResult(call: ToolCallState, status: Status, text: string | null): void {
    if (status !== "unknown") call.status = status;
    if (text !== null) call.result_excerpt = excerpt(text, RESULT_EXCERPT_CHARS);
  }

  /** A skill the agent reports having loaded outside any tool call (Copilot `skill.invoked`). */
  skillInvoked(skill: string): void {
    this.invokedSkills.push(skill);
  }

  /** A session or turn began whose closing event settles the usage (Claude `result`, Pi `agent_end`...). */
  open(): void {
    this.awaitingClose = true;
  }

  /** The closing event arrived: the usage reported so far is the session's, not a partial count. */
  close(): void {
    this.awaitingClose = false;
  }

  /** One agent turn began. Formats that mark turns call this; the others leave `turns` out. */
  turn(): void {
    this.turnCount = (this.turnCount ?? 0) + 1;
  }

  /** Usage of one model response; a later report for the same key replaces the earlier one. */
  messageUsage(key: string, usage: UsageParts): void {
    this.perMessageUsage.set(key, usage);
  }

  /** Session totals as the agent reported them; these win over summed per-message usage. */
  reportUsage(usage: UsageParts, mode: "replace" | "add" = "replace"): void {
    const next: Required<UsageParts> = {
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cache_write_tokens: null,
    };
    for (const key of USAGE_KEYS) {
      const value = usage[key] ?? null;
      const previous = mode === "add" && this.reportedUsage !== null ? this.reportedUsage[key] : null;
      next[key] = value === null ? previous : (previous ?? 0) + value;
    }
    this.reportedUsage = next;
  }

  reportDuration(ms: number, mode: "replace" | "add" = "replace"): void {
    this.reportedDurationMs = mode === "add" ? (this.reportedDurationMs ?? 0) + ms : ms;
  }

  error(message: string): void {
    if (this.errors.length < MAX_ERRORS) this.errors.push(excerpt(message, 500));
  }

  private usage(): Required<UsageParts> {
    if (this.reportedUsage !== null) return this.reportedUsage;
    const summed: Required<UsageParts> = {
      input_tokens: null,
      output_tokens: null,
      cache_read_tokens: null,
      cache_write_tokens: null,
    };
    for (const usage of this.perMessageUsage.values()) {
      for (const key of USAGE_KEYS) {
        const value = usage[key];
        if (value !== undefined && value !== null) summed[key] = (summed[key] ?? 0) + value;
      }
    }
    return summed;
  }

  /** The usage, marked `partial` when the stream stopped before the event that settles it. */
  private finalUsage(): Required<UsageParts> & { partial?: true } {
    const usage = this.usage();
    const counts = {
      input_tokens: safeCount(usage.input_tokens ?? null),
      output_tokens: safeCount(usage.output_tokens ?? null),
      cache_read_tokens: safeCount(usage.cache_read_tokens ?? null),
      cache_write_tokens: safeCount(usage.cache_write_tokens ?? null),
    };
    const known = USAGE_KEYS.some((key) => counts[key] !== null);
    return this.awaitingClose && known ? { ...counts, partial: true } : counts;
  }

  build(): Transcript {
    this.missingFields += this.pendingResults.size;
    const calls = [...this.calls];
    // A skill reported as invoked but not already present as a Skill call becomes one.
    const skillCalls = new Map<string, number>();
    for (const call of calls) {
      if (call.name === "Skill" && typeof call.input.skill === "string")
        skillCalls.set(call.input.skill, (skillCalls.get(call.input.skill) ?? 0) + 1);
    }
    for (const skill of this.invokedSkills) {
      const seen = skillCalls.get(skill) ?? 0;
      if (seen > 0) {
        skillCalls.set(skill, seen - 1);
        continue;
      }
      calls.push({
        id: null,
        name: "Skill",
        original_name: "skill.invoked",
        canonical: true,
        input: { skill },
        status: "ok",
        result_excerpt: null,
      });
    }
    const counts = new Map<string, number>();
    for (const call of calls) counts.set(call.name, (counts.get(call.name) ?? 0) + 1);
    const spanMs =
      this.firstTimestamp !== null && this.lastTimestamp !== null
        ? Math.round(this.lastTimestamp - this.firstTimestamp)
        : null;
    const document: TranscriptInput = {
      schema_version: TRANSCRIPT_SCHEMA_VERSION,
      source: {
        format: this.format,
        provider: this.provider,
        session_id: this.sessionId ?? this.labels.session_id ?? null,
        model: this.model ?? this.labels.model ?? null,
        cli_version: this.cliVersion ?? this.labels.cli_version ?? null,
        labels: this.labels,
      },
      case_id: null,
      invocation_tag: null,
      written_at: null,
      messages: this.messages.map(({ role, text, truncated }) => ({ role, text, truncated })),
      tool_calls: calls.map(({ id, name, original_name, canonical, input, status, result_excerpt }) => ({
        id,
        name,
        original_name,
        canonical,
        input,
        status,
        result_excerpt,
      })),
      usage: this.finalUsage(),
      ...(this.turnCount === null ? {} : { turns: this.turnCount }),
      duration_ms: this.reportedDurationMs !== null ? safeCount(this.reportedDurationMs) : safeCount(spanMs),
      cost_usd: this.costUsd,
      counts: Object.fromEntries(counts),
      errors: [...this.errors],
      drift: {
        unknown_event_types: Object.fromEntries(this.unknownEventTypes),
        unparseable_lines: this.unparseableLines,
        missing_fields: this.missingFields,
        truncated_last_line: this.truncatedLastLine,
      },
    };
    this.missingFields -= this.pendingResults.size;
    return parseWire(TranscriptSchema, document);
  }
}
