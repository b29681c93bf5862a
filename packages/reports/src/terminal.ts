// What the terminal output of every command needs, without the renderers: `@eval/reports/terminal` loads
// two small modules where the package's index loads every renderer (a warm run's start-up, docs/performance.md).
export { escapeTerminal } from "./escape.ts";
export { meteredText } from "./report-data.ts";
