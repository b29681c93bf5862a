// The gate never takes a record's word for its figures: it recomputes them from the record's per-case data
// (counts, mean, the bound, block-severity modes, pass^k) and judges the recomputed ones. A record whose stored
// figures disagree was edited or forged after the run: that is tampering, named figure by figure.
import { EvalError } from "@eval/errors";
import type { BenchRunReport, RecordedReport } from "@eval/models";
import { caseGateStatistics, caseLevelScores, legacyBettingBounds } from "@eval/statistics";

/** A record's stored figures disagree with its per-case data (exit 5, as a chain that does not verify). */
export class RecordFiguresTampered extends EvalError {
  readonly disagreements: readonly string[];

  constructor(runId: string, disagreements: readonly string[]) {
    super(
      "EVAL_RECORD_TAMPERED",
      `run ${runId}: its recorded figures disagree with its own per-case scores (${disagreements.join("; ")}): the record was edited or forged after the run`,
      {
        hint: "never edit a record: rerun the task class; `evalgate verify` checks the chain, signing (docs/audit-and-promotion.md) stops forged records",
        details: { run_id: runId, disagreements: [...disagreements] },
      },
    );
    this.disagreements = disagreements;
  }
}

/** A report with a bound a gate may read (every version but v1), upgraded: what the gate recomputes. */
type GatedReport = Extract<RecordedReport, { bound_quantity: string }>;

/** Each case's trials (one entry for a run of one trial per case). */
function caseTrials(report: GatedReport): BenchRunReport["per_case"][number]["score"][][] {
  return report.per_case.map((entry) => (entry.trials === undefined ? [entry.score] : [...entry.trials]));
}

/** The figures a verdict reads, as the per-case data gives them. */
export interface RecomputedFigures {
  readonly mean_score: number;
  readonly lower_bound_95: number;
  readonly lower_bound_method: GatedReport["lower_bound_method"];
  readonly passed_count: number;
  readonly block_severity_failure_modes: string[];
  /** Mean over cases of "every trial passed"; null for a report that recorded no trials (no pass^k of its own). */
  readonly pass_hat_k: number | null;
}

export function recomputeFigures(report: GatedReport): RecomputedFigures {
  const trials = caseTrials(report);
  const figures = caseGateStatistics(trials, {
    scoreKind: report.score_kind,
    trials: report.trials_per_case,
    orderSeed: report.selection.selected_case_ids_digest,
  });
  const blockCodes = [
    ...new Set(
      trials
        .flat()
        .flatMap((score) => score.failure_modes.filter((mode) => mode.severity === "block").map((mode) => mode.code)),
    ),
  ].sort();
  return {
    mean_score: figures.mean,
    lower_bound_95: figures.lowerBound95,
    lower_bound_method: figures.lowerBoundMethod,
    passed_count: figures.passedCount,
    block_severity_failure_modes: blockCodes,
    pass_hat_k: report.unrecorded?.trials ? null : figures.n === 0 ? 0 : figures.passedCount / figures.n,
  };
}

const close = (a: number, b: number): boolean => Math.abs(a - b) <= 1e-12;
const fmt = (value: number): string => String(Number(value.toFixed(6)));

/**
 * The stored figures that disagree with the recomputed ones, each as "<field> recorded X, per-case data gives Y".
 * A graded bound also matches when it equals one of the adaptive betting bounds records carried before the gate
 * moved to fixed bets (an honest older record); the verdict judges the recomputed bound either way.
 */
function disagreements(report: GatedReport, figures: RecomputedFigures): string[] {
  const found: string[] = [];
  const check = (field: string, recorded: number, computed: number, alsoHonest: readonly number[] = []) => {
    if (!close(recorded, computed) && !alsoHonest.some((honest) => close(recorded, honest)))
      found.push(`${field} recorded ${fmt(recorded)}, per-case data gives ${fmt(computed)}`);
  };
  check("passed_count", report.passed_count, figures.passed_count);
  check("mean_score", report.mean_score, figures.mean_score);
  const { scores, boundKind } = caseLevelScores(caseTrials(report), {
    scoreKind: report.score_kind,
    trials: report.trials_per_case,
  });
  const legacy =
    boundKind === "graded"
      ? legacyBettingBounds(
          scores.map((s) => s.score),
          report.selection.selected_case_ids_digest,
        )
      : [];
  check("lower_bound_95", report.lower_bound_95, figures.lower_bound_95, legacy);
  if (report.lower_bound_method !== figures.lower_bound_method)
    found.push(
      `lower_bound_method recorded ${report.lower_bound_method}, per-case data gives ${figures.lower_bound_method}`,
    );
  const recordedBlock = [...report.block_severity_failure_modes].sort().join(",");
  if (recordedBlock !== figures.block_severity_failure_modes.join(",")) {
    found.push(
      `block_severity_failure_modes recorded [${recordedBlock}], per-case data gives [${figures.block_severity_failure_modes.join(",")}]`,
    );
  }
  if (figures.pass_hat_k !== null) {
    check("reliability.pass_hat_k", report.reliability.pass_hat_k, figures.pass_hat_k);
    if (report.reliability.case_count !== report.per_case.length)
      found.push(
        `reliability.case_count recorded ${report.reliability.case_count}, per_case holds ${report.per_case.length}`,
      );
  }
  return found;
}

export interface CheckedReport {
  /** The report with every figure the gate reads replaced by its recomputed value. */
  readonly report: RecordedReport;
  /** Non-null when the stored figures disagreed: the error a caller reports (exit 5). */
  readonly tampered: RecordFiguresTampered | null;
}

/**
 * Recomputes what the gate judges from the record's per-case data. The returned report carries the recomputed
 * figures, so a verdict never rests on a stored number; `tampered` names every stored figure that disagreed.
 * A report with no bound a gate may read (v1) is returned as it is: it never supports a promotion (gate.ts says why).
 */
export function checkRecordedFigures(report: RecordedReport): CheckedReport {
  if (report.bound_quantity === null) return { report, tampered: null };
  let figures: RecomputedFigures;
  try {
    figures = recomputeFigures(report);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return {
      report,
      tampered: new RecordFiguresTampered(report.run_id, [
        `per-case scores break the score contract: ${error.message}`,
      ]),
    };
  }
  const found = disagreements(report, figures);
  const { pass_hat_k: passHatK, ...stored } = figures;
  const recomputed: RecordedReport = {
    ...report,
    ...stored,
    ...(passHatK === null ? {} : { reliability: { ...report.reliability, pass_hat_k: passHatK } }),
  };
  return { report: recomputed, tampered: found.length === 0 ? null : new RecordFiguresTampered(report.run_id, found) };
}
