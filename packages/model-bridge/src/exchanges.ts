import type { TokenUsage, WireProtocol } from "./protocols.ts";

/** One request and its answer as the bridge saw them, with the real key and the client key removed. */
export interface RecordedExchange {
  readonly index: number;
  readonly method: string;
  /** The path the CLI called (local base URL), without any `key=` parameter. */
  readonly path: string;
  /** Null for calls that are not model calls (model lists, token counts): forwarded, not metered. */
  readonly protocol: WireProtocol | null;
  readonly model: string | null;
  /** The request body as JSON (or text when it was not JSON). */
  readonly request_body: unknown;
  readonly status: number;
  readonly content_type: string;
  /** The response exactly as sent (an SSE stream or a JSON body). */
  readonly response_body: string;
  readonly usage: TokenUsage;
  readonly duration_ms: number;
}

export type ExchangeRequest = Pick<
  RecordedExchange,
  "index" | "method" | "path" | "protocol" | "model" | "request_body"
>;

/** Answers a request from a recording, or says where the request departs from it. */
export interface ReplayMatcher {
  answer(
    request: ExchangeRequest,
  ):
    | Pick<RecordedExchange, "status" | "content_type" | "response_body" | "usage">
    | { readonly divergence: ReplayDivergence };
}

export interface ReplayDivergence {
  /** 0-based position of the request among the conversation's calls to its endpoint. */
  readonly index: number;
  readonly endpoint: string;
  /** The first field that differs, e.g. `model`, `tools`, `messages.length`, `messages[0].text`. */
  readonly field: string;
  readonly recorded: string;
  readonly received: string;
}
