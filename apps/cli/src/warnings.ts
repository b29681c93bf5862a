import type { EvalWarning, WarningSink } from "@eval/errors";
import type { EvalgateContext } from "./context.ts";
import { escapeTerminal } from "@eval/reports/terminal";
import { WARNING_LINE_SCHEMA_VERSION } from "@eval/models/names";

/** Warnings go to stderr, one line each: JSON for machines, text for people. */
export function warningPrinter(context: EvalgateContext, format: "jsonl" | "human"): WarningSink {
  return (warning: EvalWarning) => {
    context.stderr.write(
      format === "human"
        ? escapeTerminal(`evalgate: warning: ${warning.message}\n`)
        : `${JSON.stringify({ level: "warn", schema_version: WARNING_LINE_SCHEMA_VERSION, ...warning })}\n`,
    );
  };
}
