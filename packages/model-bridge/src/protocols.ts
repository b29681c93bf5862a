// The four model wire protocols the agent CLIs speak: how to recognise a model call, where its key goes,
// what its error looks like, and where its usage figures are.

export type WireProtocol = "anthropic-messages" | "openai-responses" | "openai-chat" | "gemini";

/** Token figures of one response, normalised: `input_tokens` counts every prompt token, cached ones included. */
export interface TokenUsage {
  readonly input_tokens: number;
  readonly cached_input_tokens: number;
  /** Prompt tokens written to a cache (Anthropic bills them at their own rate); 0 elsewhere. */
  readonly cache_write_tokens: number;
  readonly output_tokens: number;
}

export const ZERO_USAGE: TokenUsage = Object.freeze({
  input_tokens: 0,
  cached_input_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 0,
});

/** The protocol of a model call, from its path; null for anything else (model lists, token counts). */
export function protocolOfPath(path: string): WireProtocol | null {
  const bare = path.split("?")[0] ?? "";
  if (bare.endsWith("/messages")) return "anthropic-messages";
  if (bare.endsWith("/responses")) return "openai-responses";
  if (bare.endsWith("/chat/completions")) return "openai-chat";
  if (/\/models\/[^/]+:(stream)?[gG]enerateContent$/.test(bare)) return "gemini";
  return null;
}

/** The model a request asks for: the body's `model`, or Gemini's `models/<id>:` path segment. */
export function modelOf(path: string, body: unknown): string | null {
  const gemini = /\/models\/([^/:?]+):/.exec(path);
  if (gemini !== null) return decodeURIComponent(gemini[1]!);
  return isRecord(body) && typeof body.model === "string" ? body.model : null;
}

/** Every header or query parameter a client may carry a key in: all are stripped before forwarding. */
export const CLIENT_KEY_HEADERS = ["x-api-key", "authorization", "x-goog-api-key", "api-key"] as const;

/** The header the real key is sent in upstream, by protocol. */
export function upstreamKeyHeader(protocol: WireProtocol | null, key: string): Record<string, string> {
  switch (protocol) {
    case "anthropic-messages":
      return { "x-api-key": key };
    case "gemini":
      return { "x-goog-api-key": key };
    default:
      return { authorization: `Bearer ${key}` };
  }
}

/**
 * A protocol-shaped HTTP 400 (every CLI stops on it within a fraction of a second, where a 429 or 5xx
 * makes it retry): what the bridge answers a request it refuses (budget spent, replay diverged).
 */
export function protocolError(
  protocol: WireProtocol | null,
  message: string,
): { readonly status: number; readonly body: string } {
  switch (protocol) {
    case "anthropic-messages":
      return {
        status: 400,
        body: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }),
      };
    case "gemini":
      return { status: 400, body: JSON.stringify({ error: { code: 400, message, status: "INVALID_ARGUMENT" } }) };
    default:
      return {
        status: 400,
        body: JSON.stringify({ error: { message, type: "invalid_request_error", code: "evalgate_refused" } }),
      };
  }
}

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : 0);

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * The usage one response event (a streamed SSE `data:` object, or a whole JSON body) carries, merged into
 * what earlier events of the same response said; `current` unchanged when the event has none. Streams
 * report running totals, so later figures replace earlier ones field by field.
 */
export function mergeUsage(protocol: WireProtocol, event: unknown, current: TokenUsage): TokenUsage {
  if (!isRecord(event)) return current;
  switch (protocol) {
    case "anthropic-messages":
      return anthropicUsage(event, current);
    case "openai-responses": {
      const response =
        event.type === "response.completed" || event.type === "response.incomplete" ? event.response : event;
      const usage = isRecord(response) ? response.usage : undefined;
      if (!isRecord(usage)) return current;
      const details = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
      return {
        input_tokens: num(usage.input_tokens),
        cached_input_tokens: num(details.cached_tokens),
        cache_write_tokens: 0,
        output_tokens: num(usage.output_tokens),
      };
    }
    case "openai-chat": {
      const usage = event.usage;
      if (!isRecord(usage)) return current;
      const details = isRecord(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
      return {
        input_tokens: num(usage.prompt_tokens),
        cached_input_tokens: num(details.cached_tokens),
        cache_write_tokens: 0,
        output_tokens: num(usage.completion_tokens),
      };
    }
    case "gemini": {
      const usage = event.usageMetadata;
      if (!isRecord(usage)) return current;
      return {
        input_tokens: num(usage.promptTokenCount),
        cached_input_tokens: num(usage.cachedContentTokenCount),
        cache_write_tokens: 0,
        output_tokens: num(usage.candidatesTokenCount) + num(usage.thoughtsTokenCount),
      };
    }
  }
}

/** Anthropic: `message_start` carries the prompt side, `message_delta` the running output count; a JSON body has both. */
function anthropicUsage(event: Record<string, unknown>, current: TokenUsage): TokenUsage {
  const source = event.type === "message_start" && isRecord(event.message) ? event.message.usage : event.usage;
  if (!isRecord(source)) return current;
  const has = (field: string): boolean => typeof source[field] === "number";
  const cacheRead = has("cache_read_input_tokens") ? num(source.cache_read_input_tokens) : current.cached_input_tokens;
  const cacheWrite = has("cache_creation_input_tokens")
    ? num(source.cache_creation_input_tokens)
    : current.cache_write_tokens;
  const uncached = has("input_tokens")
    ? num(source.input_tokens)
    : current.input_tokens - current.cached_input_tokens - current.cache_write_tokens;
  return {
    input_tokens: uncached + cacheRead + cacheWrite,
    cached_input_tokens: cacheRead,
    cache_write_tokens: cacheWrite,
    output_tokens: has("output_tokens") ? num(source.output_tokens) : current.output_tokens,
  };
}
