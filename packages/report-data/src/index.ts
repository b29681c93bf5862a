export { gatherReportData } from "./gather.ts";
export type { GatherOptions } from "./gather.ts";
export { recordedRunViews } from "./recorded-run.ts";
export type { RecordedRunViews, RecordedRunViewsInput } from "./recorded-run.ts";
export { listRecordedRuns } from "./run-list.ts";
export { verifiedHistory } from "./verified-history.ts";
