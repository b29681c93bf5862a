export { claudeAuthErrorStream, claudeStream, codexStream, durationMs, geminiStream } from "./cassette-streams.ts";
export type { Session, SessionOutcome, SessionStep } from "./cassette-streams.ts";
export { copyGoldenState, GOLDEN_CHAIN_HEAD, goldenRuns } from "./golden.ts";
export type { GoldenCase, GoldenRecord, GoldenReport, GoldenRun } from "./golden.ts";
export { hostUidsOf } from "./host-process.ts";
export { legacyRunReport, runReport } from "./reports.ts";
export type { RunReportShape } from "./reports.ts";
export { checkJunit } from "./junit.ts";
export type { JunitCheck } from "./junit.ts";
