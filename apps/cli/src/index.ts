export { runCli } from "./cli.ts";
export type { RunCliOptions } from "./cli.ts";
export { ERROR_PRESENTATION, ExitCode } from "./exit-codes.ts";
export { HARNESS_VERSION } from "./version.ts";
