import type { Usage } from "../scenario.ts";
import type { OfferedTool, PlannedCall } from "../tool-mapping.ts";

export type ProtocolName = "anthropic-messages" | "openai-responses" | "openai-chat" | "gemini";

/** What the stub needs from one request, whatever the protocol. */
export interface ParsedRequest {
  readonly model: string;
  readonly stream: boolean;
  readonly tools: readonly OfferedTool[];
  /** Model turns already in the conversation: the index of the scenario turn that answers. */
  readonly modelTurns: number;
  /** The user messages' text (session matching). */
  readonly userText: string;
  /** System and user text (working-directory detection). */
  readonly contextText: string;
  /** A structured-output side request (Gemini's model router), answered outside the script. */
  readonly wantsJson: boolean;
}

/** One answer, protocol-neutral. */
export interface Answer {
  readonly text: string | null;
  readonly calls: readonly (PlannedCall & { readonly id: string })[];
  readonly usage: Usage;
  /** The model declines (a scenario turn's `refusal`): the protocol's refusal stop where it has one. */
  readonly refusal?: boolean;
}

/** An HTTP response: a JSON body, or server-sent events written one by one. */
export interface Rendered {
  readonly status: number;
  readonly contentType: string;
  readonly chunks: readonly string[];
}

export interface Protocol {
  readonly name: ProtocolName;
  parse(body: Record<string, unknown>): ParsedRequest;
  render(answer: Answer, request: ParsedRequest): Rendered;
  renderError(status: number, message: string): Rendered;
}

export function sse(data: unknown, event?: string): string {
  return `${event === undefined ? "" : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

export function json(status: number, body: unknown): Rendered {
  return { status, contentType: "application/json", chunks: [JSON.stringify(body)] };
}

export function eventStream(chunks: readonly string[]): Rendered {
  return { status: 200, contentType: "text/event-stream", chunks };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Text of a content field that is a string or a list of `{type, text}` parts. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) => (isRecord(part) && typeof part.text === "string" ? part.text : ""))
    .join("\n");
}

/** Top-level property names of a JSON schema. */
export function schemaProperties(schema: unknown): string[] {
  return isRecord(schema) && isRecord(schema.properties) ? Object.keys(schema.properties) : [];
}

/** The `required` names of a JSON schema. */
export function schemaRequired(schema: unknown): string[] {
  return isRecord(schema) && Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === "string")
    : [];
}

/** Counts runs of consecutive items for which `isModel` holds: one run is one model turn. */
export function countRuns(items: readonly unknown[], isModel: (item: unknown) => boolean): number {
  let runs = 0;
  let inRun = false;
  for (const item of items) {
    const model = isModel(item);
    if (model && !inRun) runs += 1;
    inRun = model;
  }
  return runs;
}
