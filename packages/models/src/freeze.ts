import type { z } from "zod";

/** Readonly all the way down: what every parse in this package returns. */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends readonly (infer E)[]
    ? readonly DeepReadonly<E>[]
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/** Freezes a plain JSON-like value in place, recursively, and returns it. */
export function deepFreeze<T>(value: T): DeepReadonly<T> {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
    Object.freeze(value);
  }
  return value as DeepReadonly<T>;
}

/** Parses with `schema` (throwing zod's error on invalid input) and deep-freezes the result. */
export function parseWire<S extends z.ZodType>(schema: S, data: unknown): DeepReadonly<z.output<S>> {
  return deepFreeze(schema.parse(data));
}

export type WireParseResult<T> =
  | { readonly success: true; readonly data: DeepReadonly<T> }
  | { readonly success: false; readonly issues: readonly WireIssue[] };

/** One validation problem: the dotted path of the field and the reason. */
export interface WireIssue {
  readonly path: string;
  readonly message: string;
}

/** Like `parseWire`, but returns the issues (path + reason) instead of throwing. */
export function safeParseWire<S extends z.ZodType>(schema: S, data: unknown): WireParseResult<z.output<S>> {
  const result = schema.safeParse(data);
  if (result.success) return { success: true, data: deepFreeze(result.data) };
  return {
    success: false,
    issues: result.error.issues.map((issue) => ({
      path: issue.path.length === 0 ? "(root)" : issue.path.map(String).join("."),
      message: issue.message,
    })),
  };
}

/** One line naming every problem, e.g. `score: Too big: expected number to be <=1; detail: ...`. */
export function formatIssues(issues: readonly WireIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join("; ");
}
