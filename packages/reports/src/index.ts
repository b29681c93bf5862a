export { escapeHtml, escapeMarkdown, escapeTerminal, escapeXml } from "./escape.ts";
export { DETAILS_CHUNK, readEmbeddedData, renderHtmlReport, reportCsp } from "./html.ts";
export type { HtmlReport, HtmlReportOptions } from "./html.ts";
export { renderJunit } from "./junit.ts";
export type { JunitInput } from "./junit.ts";
export { renderRunGlance } from "./glance.ts";
export { renderMarkdownSummary } from "./markdown.ts";
export type { MarkdownSummaryInput } from "./markdown.ts";
export { caseStatus, HARNESS_FAILURE_CODES, meteredText, REPORT_DATA_SCHEMA_VERSION } from "./report-data.ts";
export type {
  CaseEvidence,
  CaseTrials,
  ReportTrial,
  ReportBaseline,
  ReportCase,
  ReportChain,
  ReportData,
  ReportRecord,
  ReportRun,
  ReportTier,
  TrendPoint,
} from "./report-data.ts";
export { caseTrial, renderCaseText, renderRunText } from "./show.ts";
export { trendChartSvg } from "./trend-chart.ts";
export { matchesRunFilter, renderRunListText, runListEntry } from "./run-list.ts";
export type { RunListEntry, RunListFilter } from "./run-list.ts";
