// The human table of `evalgate bench check`: one row per case, one column per control. A cell says what
// the control did: `pass` / `fail` for the reference fix and the no-op as expected, the failure mode a
// near miss was caught with, `-` where the case says the near miss does not apply, and `MISSED (...)`,
// `PASSED`, `FAILED (...)` or `ERROR` where it misbehaved.
import type { BenchCheckResult, ControlCheck } from "@eval/runner";

function cell(check: ControlCheck | undefined, notApplicable: boolean): string {
  if (check === undefined) return notApplicable ? "-" : "(none)";
  if (check.passed === null) return "ERROR";
  const codes = check.failureModes.join("+") || "no failure mode";
  if (check.expected === "pass") return check.ok ? "pass" : `FAILED (${codes})`;
  if (check.expected === "fail") return check.ok ? "fail" : "PASSED";
  return check.ok ? check.expected.failureMode : check.passed ? "MISSED (passed)" : `MISSED (${codes})`;
}

export function formatBenchCheck(result: BenchCheckResult): string {
  const columns = ["reference", "no-op", ...result.kinds];
  const caseIds = [...new Set(result.checks.map((c) => c.caseId))];
  const rows = caseIds.map((caseId) => [
    caseId,
    ...columns.map((control) =>
      cell(
        result.checks.find((c) => c.caseId === caseId && c.control === control),
        result.notApplicable.some((n) => n.caseId === caseId && n.kind === control),
      ),
    ),
  ]);
  const table = [["case", ...columns], ...rows];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  const lines = table.map((row) =>
    row
      .map((text, i) => text.padEnd(widths[i]!))
      .join("  ")
      .trimEnd(),
  );
  const nearMisses = result.checks.filter((c) => typeof c.expected !== "string");
  const count = (control: string, ok: boolean) =>
    result.checks.filter((c) => c.control === control && c.ok === ok).length;
  lines.push(
    "",
    `${result.taskClass}: ${caseIds.length} cases; reference fixes passed ${count("reference", true)}/${count("reference", true) + count("reference", false)}, no-ops judged right ${count("no-op", true)}/${caseIds.length}, near misses caught ${nearMisses.filter((c) => c.ok).length}/${nearMisses.length} (${result.notApplicable.length} not applicable)`,
  );
  for (const check of result.checks.filter((c) => c.error !== null))
    lines.push(`error: ${check.caseId} ${check.control}: ${check.error}`);
  for (const problem of result.problems) lines.push(`problem: ${problem}`);
  lines.push(result.ok ? "bench check: ok" : "bench check: FAILED");
  return `${lines.join("\n")}\n`;
}
