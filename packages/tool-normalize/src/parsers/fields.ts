// Tolerant field access for events of unknown shape: a wrong type reads as absent, never throws.

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

export function obj(value: unknown): JsonObject | undefined {
  return isObject(value) ? value : undefined;
}

export function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function arr(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * One format's handling of one event: true when the event type is known (even if nothing is kept).
 * `type` is the event's type as the format names it (its `type` field, or a JSON-RPC method).
 */
export type EventHandler = (
  event: JsonObject,
  builder: import("../builder.ts").TranscriptBuilder,
  type: string,
) => boolean;
