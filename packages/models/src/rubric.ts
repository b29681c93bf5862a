import { z } from "zod";
import { BenchCaseSchema } from "./case.ts";
import { BenchScoreSchema } from "./score.ts";
import { UsdSchema } from "./primitives.ts";

/**
 * What a system under test returns for one case. Task-class specific beyond `cost_usd`, which the
 * harness records on the score (the rubric never sets cost).
 */
export const HarnessOutputSchema = z.looseObject({
  cost_usd: UsdSchema.optional(),
});

export const RUBRIC_REQUEST_SCHEMA_VERSION = "evalgate.rubric_request.v1";
export const RUBRIC_RESPONSE_SCHEMA_VERSION = "evalgate.rubric_response.v1";

/** The one JSON document a rubric subprocess reads on stdin. */
export const RubricRequestSchema = z.strictObject({
  schema_version: z.literal(RUBRIC_REQUEST_SCHEMA_VERSION),
  case: BenchCaseSchema,
  harness_output: HarnessOutputSchema,
  context: z.strictObject({
    /** The SUT's scratch copy of `input/` after it ran, when the SUT worked on files. */
    workspace_path: z.string().min(1).nullable(),
  }),
});

/** The one JSON document a rubric subprocess writes on stdout. */
export const RubricResponseSchema = z.strictObject({
  schema_version: z.literal(RUBRIC_RESPONSE_SCHEMA_VERSION),
  score: BenchScoreSchema,
});
