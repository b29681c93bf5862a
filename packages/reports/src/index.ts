export { readEmbeddedData, renderHtmlReport } from "./html.ts";
export { renderJunit } from "./junit.ts";
export { renderRunGlance } from "./glance.ts";
export { renderMarkdownSummary } from "./markdown.ts";
export { REPORT_DATA_SCHEMA_VERSION } from "./report-data.ts";
export type {
  CaseEvidence,
  CaseTrials,
  ReportTrial,
  ReportCase,
  ReportData,
  ReportRun,
  TrendPoint,
} from "./report-data.ts";
export { caseTrial, renderCaseText, renderRunText } from "./show.ts";
export { matchesRunFilter, renderRunListText, runListEntry } from "./run-list.ts";
export type { RunListEntry, RunListFilter } from "./run-list.ts";
