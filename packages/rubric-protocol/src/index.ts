export type { Rubric, RubricContext } from "./rubric.ts";
export { RUBRIC_EXIT, runRubric } from "./run-rubric.ts";
export type { RubricIo } from "./run-rubric.ts";
export { rubricRequestJsonSchema, rubricResponseJsonSchema } from "./json-schemas.ts";
export { agentErrorDetail, changedFiles } from "./helpers.ts";
