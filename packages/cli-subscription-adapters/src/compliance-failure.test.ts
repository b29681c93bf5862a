import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ComplianceReport } from "@eval/models";
import {
  classificationOf,
  complianceFailureHint,
  describeClassification,
  trialsInReportFile,
} from "./compliance-failure.ts";
import { ComplianceReportFailed } from "./errors.ts";

const report = (
  counts: Partial<Record<string, number>>,
  ran = 20,
  passed = counts.parse_success ?? 0,
): ComplianceReport =>
  ({
    task_count: 20,
    ran_count: ran,
    parse_success_count: counts.parse_success ?? 0,
    passed_count: passed,
    trial_class_counts: {
      parse_success: 0,
      parse_failure: 0,
      model_refusal: 0,
      format_drift: 0,
      cli_error: 0,
      ...counts,
    },
  }) as unknown as ComplianceReport;
const trial = (kind: string | null) => ({ classification: { cli_error_kind: kind } });

describe("the classification of a failed compliance report", () => {
  it("an auth failure: log in, never 'drifted'", () => {
    const c = classificationOf(report({ cli_error: 1 }, 1), [trial("auth_failure")]);
    expect(describeClassification(c)).toBe("1 cli_error (auth_failure), 19 not run");
    expect(complianceFailureHint(c)).toMatch(/^the CLI is not logged in/);
  });

  it("format drift, parse failures, refusals and other CLI errors each get their own hint", () => {
    const drift = classificationOf(report({ format_drift: 12, parse_success: 8 }));
    expect(describeClassification(drift)).toBe("12 format_drift");
    expect(complianceFailureHint(drift)).toMatch(/output drifted from the format evalgate parses/);
    expect(complianceFailureHint(classificationOf(report({ parse_failure: 3, parse_success: 17 })))).toMatch(/drifted/);
    expect(complianceFailureHint(classificationOf(report({ model_refusal: 2, parse_success: 18 })))).toMatch(
      /the model refused benign tasks/,
    );
    const timeouts = classificationOf(report({ cli_error: 3, parse_success: 17 }), [
      trial("timeout"),
      trial("timeout"),
      trial("stdout_cap"),
      trial(null),
    ]);
    expect(describeClassification(timeouts)).toBe("3 cli_error (timeout 2, stdout_cap 1)");
    expect(complianceFailureHint(timeouts)).toMatch(/^the CLI failed to run/);
    expect(describeClassification(classificationOf(report({}, 0)))).toBe("20 not run");
    expect(complianceFailureHint(classificationOf(report({ parse_success: 19 }, 19)))).toBe(
      "see the compliance report named above",
    );
    expect(describeClassification({ counts: {}, notRun: 0, cliErrorKinds: {}, effectsUnmet: 0 })).toBe("no trial ran");
  });

  it("sessions that parsed but left no expected files: the CLI did not do the tasks, named first", () => {
    const undone = classificationOf(report({ parse_success: 20 }, 20, 0));
    expect(describeClassification(undone)).toBe(
      "20 did not do the task (parsed, but the expected files were not there)",
    );
    expect(complianceFailureHint(undone)).toMatch(/^the CLI ended its sessions cleanly without doing the tasks/);
    const mixed = classificationOf(report({ parse_success: 18, cli_error: 2 }, 20, 15), [
      trial("timeout"),
      trial("timeout"),
    ]);
    expect(describeClassification(mixed)).toBe(
      "3 did not do the task (parsed, but the expected files were not there), 2 cli_error (timeout)",
    );
    expect(complianceFailureHint(mixed)).toMatch(/^the CLI failed to run/);
  });

  it("reads the trials' cli_error kinds from a report file, skipping what is not a trial line", () => {
    const dir = mkdtempSync(join(tmpdir(), "evalgate-compliance-failure-"));
    const path = join(dir, "report.jsonl");
    writeFileSync(
      path,
      [
        JSON.stringify({ task_id: "a", classification: { cli_error_kind: "auth_failure" } }),
        JSON.stringify({ task_id: "b", classification: null }),
        "not json",
        JSON.stringify({ schema_version: "report" }),
      ].join("\n"),
    );
    expect(trialsInReportFile(path)).toEqual([
      { classification: { cli_error_kind: "auth_failure" } },
      { classification: null },
    ]);
    expect(trialsInReportFile(join(dir, "missing.jsonl"))).toEqual([]);
  });

  it("the error keeps its old message without a classification", () => {
    const plain = new ComplianceReportFailed("codex", "/r.jsonl", 0.5, 0.99);
    expect(plain.message).toBe(
      "the newest compliance report for codex (/r.jsonl) passed 50.0% of benign tasks; at least 99% is required",
    );
    expect(plain.hint).toBeUndefined();
  });
});
