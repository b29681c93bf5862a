export { gatherReportData } from "./gather.ts";
export { recordedRunViews } from "./recorded-run.ts";
export type { RecordedRunViewsInput } from "./recorded-run.ts";
export { listRecordedRuns } from "./run-list.ts";
export { verifiedEvidence } from "./verified-history.ts";
export { checkHistoryIndex } from "./history-index-check.ts";
export type { HistoryIndexCheck } from "./history-index-check.ts";
