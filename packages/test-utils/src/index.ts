export { claudeAuthErrorStream, claudeStream, codexStream, durationMs, geminiStream } from "./cassette-streams.ts";
export type { Session, SessionStep } from "./cassette-streams.ts";
export { copyGoldenState, GOLDEN_CHAIN_HEAD, goldenRuns } from "./golden.ts";
export { pinnedAgentClis } from "./agent-clis.ts";
export { hostProcessesMatching, hostUidsOf, killHostProcesses } from "./host-process.ts";
export { legacyRunReport, runReport } from "./reports.ts";
export { checkJunit } from "./junit.ts";
export { mountTmpfs } from "./tmpfs.ts";
export { benchRootOf, testBenchCase } from "./bench-case.ts";
