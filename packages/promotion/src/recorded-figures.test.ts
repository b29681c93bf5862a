import { describe, expect, it } from "vitest";
import { caseGateStatistics, legacyBettingBounds } from "@eval/statistics";
import type { BenchRunReport } from "@eval/models";
import { checkRecordedFigures } from "./recorded-figures.ts";
import { reportWith } from "./__fixtures__/reports.ts";

/** A report whose stored figures are the ones its per-case data gives (as the runner writes them). */
function honest(passed: number): BenchRunReport {
  const report = reportWith({ lowerBound: 0, passed, heldOut: 8, complete: true });
  const figures = caseGateStatistics(
    report.per_case.map((c) => [c.score]),
    { scoreKind: "graded", trials: 1, orderSeed: report.selection.selected_case_ids_digest },
  );
  return {
    ...report,
    mean_score: figures.mean,
    lower_bound_95: figures.lowerBound95,
    passed_count: figures.passedCount,
    reliability: { ...report.reliability, pass_hat_k: passed / report.per_case.length },
  };
}

describe("checkRecordedFigures", () => {
  it("accepts a record whose figures match its per-case data, and ones written with the earlier adaptive betting bounds", () => {
    const report = honest(6);
    expect(checkRecordedFigures(report)).toEqual({ report, tampered: null });
    const legacy = legacyBettingBounds(
      report.per_case.map((c) => c.score.score),
      report.selection.selected_case_ids_digest,
    );
    expect(legacy).toHaveLength(2);
    for (const bound of legacy) {
      expect(bound).not.toBe(report.lower_bound_95);
      const older = checkRecordedFigures({ ...report, lower_bound_95: bound });
      expect(older.tampered).toBeNull();
      expect(older.report.lower_bound_95).toBe(report.lower_bound_95); // the verdict judges the fixed-bet bound
    }
  });

  it("names every stored figure that disagrees, and hands back the recomputed ones", () => {
    const report = honest(3);
    const forged = {
      ...report,
      lower_bound_95: 0.9,
      passed_count: 8,
      block_severity_failure_modes: [] as string[],
      lower_bound_method: "clopper_pearson" as const,
    };
    const withBlock = {
      ...forged,
      per_case: forged.per_case.map((c, i) =>
        i === 2
          ? {
              ...c,
              score: {
                ...c.score,
                failure_modes: [{ code: "still_vulnerable", severity: "block" as const, detail: null }],
              },
            }
          : c,
      ),
    };
    const { report: recomputed, tampered } = checkRecordedFigures(withBlock);
    expect(tampered?.code).toBe("EVAL_RECORD_TAMPERED");
    expect(tampered?.disagreements).toEqual([
      "passed_count recorded 8, per-case data gives 3",
      `lower_bound_95 recorded 0.9, per-case data gives ${Number(report.lower_bound_95.toFixed(6))}`,
      "lower_bound_method recorded clopper_pearson, per-case data gives betting",
      "block_severity_failure_modes recorded [], per-case data gives [still_vulnerable]",
    ]);
    expect(recomputed).toMatchObject({
      lower_bound_95: report.lower_bound_95,
      passed_count: 3,
      block_severity_failure_modes: ["still_vulnerable"],
    });
  });

  it("a binary record whose scores break the contract is tampering, not a crash", () => {
    const report = { ...honest(3), score_kind: "binary" as const };
    expect(checkRecordedFigures(report).tampered?.message).toMatch(
      /per-case scores break the score contract: .*not binary/,
    );
  });
});
