import { RubricRequestSchema, RubricResponseSchema, toJsonSchema } from "@eval/models";

/**
 * The JSON Schema (draft 2020-12) of the document a rubric reads on stdin, for rubrics written in
 * other languages. The same file ships as `@eval/models/schemas/rubric-request.schema.json`.
 */
export function rubricRequestJsonSchema(): Record<string, unknown> {
  return toJsonSchema(RubricRequestSchema, "urn:evalgate:schema:rubric-request");
}

/** The JSON Schema of the one line a rubric writes on stdout (`rubric-response.schema.json`). */
export function rubricResponseJsonSchema(): Record<string, unknown> {
  return toJsonSchema(RubricResponseSchema, "urn:evalgate:schema:rubric-response");
}
