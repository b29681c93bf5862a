import { z } from "zod";
import { WIRE_SCHEMAS } from "./wire-schemas.ts";

/**
 * The JSON Schema (draft 2020-12) of one wire type, for validators in other languages.
 * `io: "input"` describes what a producer may send (defaults optional), which is what a rubric or SUT
 * written in another language needs.
 */
export function toJsonSchema(schema: z.ZodType, id?: string): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, { io: "input", unrepresentable: "any", target: "draft-2020-12" });
  return id === undefined ? generated : { $id: id, ...generated };
}

/** Every wire type's JSON Schema by name, with a stable `$id`. */
export function allJsonSchemas(): Record<string, Record<string, unknown>> {
  const result: Record<string, Record<string, unknown>> = {};
  for (const [name, schema] of Object.entries(WIRE_SCHEMAS)) {
    result[name] = toJsonSchema(schema, `urn:evalgate:schema:${name}`);
  }
  return result;
}
