export { checkStateDir } from "./check.ts";
export {
  caseDetailFile,
  caseDetailsDir,
  DEFAULT_STATE_DIR,
  detailIndexPath,
  RUN_DIR_NAMES,
  RUN_TEMP,
  RUNS_NAMES,
  STATE_NAMES,
  stateLayout,
  taskClassCatalogPath,
  transcriptFile,
  transcriptStreamsDir,
} from "./names.ts";
export { writeRecommendation } from "./recommendation.ts";
