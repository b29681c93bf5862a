export type { Rubric, RubricContext } from "./rubric.ts";
export type { RubricIo } from "./runtime.ts";
// One module behind this index, and nothing else loaded at run time: see runtime.ts.
export {
  agentErrorDetail,
  changedFiles,
  RUBRIC_EXIT,
  rubricRequestJsonSchema,
  rubricResponseJsonSchema,
  runRubric,
} from "./runtime.ts";
