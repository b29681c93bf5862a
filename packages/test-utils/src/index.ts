export { copyGoldenState, GOLDEN_CHAIN_HEAD, goldenRuns } from "./golden.ts";
export { pinnedAgentClis } from "./agent-clis.ts";
export { hostProcessesMatching, hostUidsOf, killHostProcesses } from "./host-process.ts";
export { legacyRunReport, runReport } from "./reports.ts";
export { checkJunit } from "./junit.ts";
export { mountTmpfs } from "./tmpfs.ts";
export { benchRootOf, testBenchCase } from "./bench-case.ts";
export { upsertScriptedSession } from "./scripted-sessions.ts";
export type { ScriptedSession } from "./scripted-sessions.ts";
