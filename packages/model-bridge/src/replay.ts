// Answers a re-run CLI from a recording: the n-th request to an endpoint gets the n-th recorded answer to
// it, once its shape matches the recorded request's. Requests differ run to run in ids, timestamps and
// paths, so matching goes by order within the conversation, never by hash; the shape compared is the
// model, the tools offered, the length of the conversation, its first user text and all its user texts (the
// prompt, wherever a CLI puts it) with ids, dates and temporary paths blanked.
import type { ExchangeRequest, RecordedExchange, ReplayDivergence, ReplayMatcher } from "./exchanges.ts";
import type { WireProtocol } from "./protocols.ts";
import { isRecord } from "./protocols.ts";

type Shape = ReadonlyArray<readonly [field: string, value: string]>;

const endpointOf = (request: Pick<ExchangeRequest, "method" | "path">): string =>
  `${request.method} ${request.path.split("?")[0]}`;

/** Blanks what varies run to run in a text: UUIDs, long hex ids, dates and times, temporary paths. */
export function normalizeText(text: string): string {
  return text
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/\b[0-9a-f]{16,}\b/gi, "<hex>")
    .replace(/\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?/g, "<date>")
    .replace(/\/tmp\/[^\s"'`)]+/g, "<tmp>")
    .replace(/\s+/g, " ")
    .trim();
}

const CONVERSATION: Record<WireProtocol, string> = {
  "anthropic-messages": "messages",
  "openai-responses": "input",
  "openai-chat": "messages",
  gemini: "contents",
};

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n");
}

function toolNames(body: Record<string, unknown>): string {
  const tools = Array.isArray(body.tools) ? body.tools : [];
  const names = tools.flatMap((tool): string[] => {
    if (!isRecord(tool)) return [];
    if (Array.isArray(tool.functionDeclarations))
      return tool.functionDeclarations.map((declaration) => (isRecord(declaration) ? String(declaration.name) : ""));
    const fn = isRecord(tool.function) ? tool.function : tool;
    return [String(fn.name ?? tool.type ?? "")];
  });
  return names.sort().join(",");
}

/** The fields compared, in order; the first that differs is the one a divergence names. */
export function shapeOf(protocol: WireProtocol | null, body: unknown): Shape {
  if (protocol === null || !isRecord(body)) return [];
  const key = CONVERSATION[protocol];
  const turns = Array.isArray(body[key]) ? (body[key] as unknown[]) : typeof body[key] === "string" ? [body[key]] : [];
  const userTexts = turns
    .filter((turn) => typeof turn === "string" || (isRecord(turn) && turn.role === "user"))
    .map(userText);
  return [
    ["model", String(body.model ?? "")],
    ["tools", toolNames(body)],
    [`${key}.length`, String(turns.length)],
    [`${key}[first user].text`, normalizeText(userTexts[0] ?? "")],
    // Codex's first user item is its environment context; the prompt follows it.
    [`${key}[every user].text`, normalizeText(userTexts.join("\n"))],
  ];
}

/** A user turn's text parts (tool results are not text parts: their content is compared by order alone). */
const userText = (turn: unknown): string =>
  typeof turn === "string" ? turn : isRecord(turn) ? textOf(turn.content ?? turn.parts) : "";

const clip = (text: string): string => (text.length > 200 ? `${text.slice(0, 199)}…` : text);

export function createReplayMatcher(recorded: readonly RecordedExchange[]): ReplayMatcher {
  const queues = new Map<string, RecordedExchange[]>();
  for (const exchange of recorded) {
    const endpoint = endpointOf(exchange);
    queues.set(endpoint, [...(queues.get(endpoint) ?? []), exchange]);
  }
  const cursors = new Map<string, number>();
  return {
    answer(request) {
      const endpoint = endpointOf(request);
      const index = cursors.get(endpoint) ?? 0;
      cursors.set(endpoint, index + 1);
      const queue = queues.get(endpoint) ?? [];
      const recordedExchange = queue[index];
      const diverge = (field: string, was: string, now: string): { divergence: ReplayDivergence } => ({
        divergence: { index, endpoint, field, recorded: clip(was), received: clip(now) },
      });
      if (recordedExchange === undefined)
        return diverge("request count", `${queue.length} request(s) to ${endpoint}`, `request ${index + 1}`);
      const was = shapeOf(recordedExchange.protocol, recordedExchange.request_body);
      const now = shapeOf(request.protocol, request.request_body);
      for (const [position, [field, value]] of was.entries()) {
        const received = now[position]?.[1] ?? "";
        if (received !== value) return diverge(field, value, received);
      }
      return {
        status: recordedExchange.status,
        content_type: recordedExchange.content_type,
        response_body: recordedExchange.response_body,
        usage: recordedExchange.usage,
      };
    },
  };
}
