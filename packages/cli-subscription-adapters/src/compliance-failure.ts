// Why a compliance report failed, in words an operator can act on: the trials' classification decides
// the hint (an auth failure means "log in", format drift means "the CLI's output changed").
import { readFileSync } from "node:fs";
import type { ComplianceReport } from "@eval/models";

export interface ComplianceClassification {
  /** trial_class -> count, over the trials that ran. */
  readonly counts: Readonly<Record<string, number>>;
  /** Tasks not run (after an auth failure, the rest are skipped). */
  readonly notRun: number;
  /** cli_error_kind -> count, over the cli_error trials. */
  readonly cliErrorKinds: Readonly<Record<string, number>>;
  /** Trials whose stream parsed but whose expected files were not there: the CLI did not do the task. */
  readonly effectsUnmet: number;
}

/** The classification of a report, with cli_error kinds from its trial lines (or those given). */
export function classificationOf(
  report: ComplianceReport,
  trials?: ReadonlyArray<{ readonly classification: { readonly cli_error_kind: string | null } | null }>,
): ComplianceClassification {
  const cliErrorKinds: Record<string, number> = {};
  for (const trial of trials ?? []) {
    const kind = trial.classification?.cli_error_kind;
    if (kind !== null && kind !== undefined) cliErrorKinds[kind] = (cliErrorKinds[kind] ?? 0) + 1;
  }
  return {
    counts: report.trial_class_counts,
    notRun: report.task_count - report.ran_count,
    cliErrorKinds,
    effectsUnmet: report.parse_success_count - report.passed_count,
  };
}

/** The trial lines of a report file (best effort: a line that does not parse is skipped). */
export function trialsInReportFile(path: string): Array<{ classification: { cli_error_kind: string | null } | null }> {
  const trials: Array<{ classification: { cli_error_kind: string | null } | null }> = [];
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return trials;
  }
  for (const line of text.split("\n")) {
    try {
      const value = JSON.parse(line) as {
        task_id?: unknown;
        classification?: { cli_error_kind: string | null } | null;
      };
      if (typeof value.task_id === "string") trials.push({ classification: value.classification ?? null });
    } catch {
      // not a JSON line
    }
  }
  return trials;
}

/** `1 cli_error (auth_failure), 19 not run`: the failing classes, largest first, after the tasks not done. */
export function describeClassification(classification: ComplianceClassification): string {
  const undone =
    classification.effectsUnmet > 0
      ? [`${classification.effectsUnmet} did not do the task (parsed, but the expected files were not there)`]
      : [];
  const parts = [
    ...undone,
    ...Object.entries(classification.counts)
      .filter(([name, count]) => name !== "parse_success" && count > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, count]) => {
        const kinds = Object.entries(classification.cliErrorKinds).map(
          ([kind, n]) => `${kind}${n === count ? "" : ` ${n}`}`,
        );
        return `${count} ${name}${name === "cli_error" && kinds.length > 0 ? ` (${kinds.join(", ")})` : ""}`;
      }),
  ];
  if (classification.notRun > 0) parts.push(`${classification.notRun} not run`);
  return parts.join(", ") || "no trial ran";
}

/** What to do, from the classification: log in, look at the CLI's errors, or at the drifted output. */
export function complianceFailureHint(classification: ComplianceClassification): string {
  if ((classification.cliErrorKinds.auth_failure ?? 0) > 0) {
    return "the CLI is not logged in (an auth failure, not output drift): log in with the CLI itself, check with `evalgate adapters doctor`, then rerun `evalgate adapters compliance-check`";
  }
  const failing = Object.entries(classification.counts)
    .filter(([name, count]) => name !== "parse_success" && count > 0)
    .sort((a, b) => b[1] - a[1]);
  const top = failing[0]?.[0];
  if (top === undefined && classification.effectsUnmet > 0) {
    return "the CLI ended its sessions cleanly without doing the tasks: each trial's effects.unmet in the report named above says which file was missing or wrong (a CLI whose tools fail, or that cannot write its workspace, looks like this)";
  }
  if (top === "cli_error")
    return "the CLI failed to run (see each trial's cli_error_kind in the report named above, and the CLI's stderr); `evalgate adapters doctor` checks the binary and login";
  if (top === "model_refusal")
    return "the model refused benign tasks: see the report named above; a CLI setting or a policy may be blocking them";
  if (top === "format_drift" || top === "parse_failure")
    return "the CLI's output drifted from the format evalgate parses: see the report named above, and the adapter for this CLI version";
  return "see the compliance report named above";
}
