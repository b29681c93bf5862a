export { gatherReportData } from "./gather.ts";
export { recordedRunViews } from "./recorded-run.ts";
export type { RecordedRunViewsInput } from "./recorded-run.ts";
export { listRecordedRuns } from "./run-list.ts";
export { verifiedEvidence } from "./verified-history.ts";
