import { upgradeReport } from "@eval/models";
import type {
  AnyBenchRunReport,
  BenchScore,
  CaseResult,
  PromotionVerdict,
  RecordedReport,
  RunMetered,
  Transcript,
} from "@eval/models";
import { REPORT_DATA_SCHEMA_VERSION } from "@eval/models/names";

export { REPORT_DATA_SCHEMA_VERSION };

/** The data every renderer reads: one recorded run and what surrounds it, gathered from the state dir. */
export interface ReportData {
  readonly schema_version: typeof REPORT_DATA_SCHEMA_VERSION;
  readonly generated_at: string;
  readonly harness_version: string;
  /** The run's report as the chain recorded it (its `per_case` is summarised in `cases`). */
  readonly run: ReportRun;
  readonly record: ReportRecord;
  readonly chain: ReportChain;
  /** One verdict per tier above the task class's current tier; empty when no tier file was read. */
  readonly verdicts: readonly PromotionVerdict[];
  readonly tiers: readonly ReportTier[];
  /** The lower bound and mean of every complete full run of this task class in the chain, oldest first. */
  readonly trend: readonly TrendPoint[];
  readonly cases: readonly ReportCase[];
  readonly baseline: ReportBaseline | null;
}

/** A recorded report without its `per_case` (each version kept apart, so `schema_version` still narrows). */
export type ReportRun = AnyBenchRunReport extends infer R ? (R extends unknown ? Omit<R, "per_case"> : never) : never;

/** A run's header in the current shape: what the views read (they ask what a run holds, never its version). */
export type CurrentRun = Omit<RecordedReport, "per_case">;

/**
 * `run` upgraded to the current shape (`upgradeReport`) without its per-case data: what a report recorded
 * before v3 never kept reads as one trial per case and no metered sums, and `unrecorded` says so (its harness
 * error count, counted from no per-case data, is 0: a view says "not recorded" instead).
 */
export function currentRun(run: ReportRun | CurrentRun): CurrentRun {
  const { per_case: _none, ...current } = upgradeReport({ ...run, per_case: [] } as AnyBenchRunReport);
  return current;
}

export interface ReportRecord {
  readonly file: string;
  readonly sequence: number;
  readonly recorded_at: string;
  readonly content_hash: string;
  readonly chain_hash: string;
}

export interface ReportChain {
  readonly head: string;
  readonly verified: boolean;
  readonly records: number;
  /** Why the chain does not verify, when it does not. */
  readonly problem: string | null;
}

export interface ReportTier {
  readonly name: string;
  readonly threshold: number;
}

export interface TrendPoint {
  readonly run_id: string;
  readonly ended_at: string;
  readonly mean_score: number;
  readonly lower_bound_95: number;
  /** Cases that passed (every trial, with trials) over the cases the run scored. */
  readonly pass_rate: number;
}

/** k of n when the run recorded trials per case (absent otherwise). */
export interface CaseTrials {
  readonly passed: number;
  readonly total: number;
}

/** What the case's detail file recorded besides its score. */
export interface CaseEvidence {
  /** The run that executed the case (an earlier one for a cache hit). */
  readonly executed_in_run: string;
  readonly sut_error: string | null;
  readonly sut_wall_clock_ms: number;
  readonly rubric_wall_clock_ms: number | null;
  readonly rubric_exit_code: number | null;
  readonly rubric_stderr: string | null;
  /** The workspace diff: as the harness recorded it (`diff_source: "harness"`), else as an older agent SUT reported it. */
  readonly diff: string | null;
  readonly diff_source: "harness" | "sut" | null;
  /** The files the SUT added, changed or deleted, as the harness recorded them (empty without a capture). */
  readonly changed_files: readonly ChangedFile[];
  /** What the SUT's process printed (the first bytes of each stream), when the harness recorded it. */
  readonly sut_stdout: StreamText | null;
  readonly sut_stderr: StreamText | null;
}

export interface ChangedFile {
  readonly path: string;
  readonly status: "added" | "changed" | "deleted";
  /** The size after the change (0 for a deleted file). */
  readonly bytes: number;
}

/** The first bytes of a stream, with its full size. */
export interface StreamText {
  readonly text: string;
  readonly bytes: number;
  readonly truncated: boolean;
}

export interface ReportCase {
  readonly case_id: string;
  readonly curation_class: CaseResult["curation_class"];
  readonly score: BenchScore;
  /** null when the run's detail for the case is not on disk. */
  readonly cache_hit: boolean | null;
  readonly trials: CaseTrials | null;
  /** Every trial (trial 0 first) when the run had more than one per case; null otherwise. `score`, `evidence` and `transcript` above are trial 0's. */
  readonly trial_runs: readonly ReportTrial[] | null;
  readonly evidence: CaseEvidence | null;
  readonly transcript: Transcript | null;
  /** The same case in the baseline run, when there is one. */
  readonly baseline: { readonly score: number; readonly passed: boolean } | null;
}

/** One trial of a case: its score and what its own detail file recorded. */
export interface ReportTrial {
  readonly trial: number;
  readonly score: BenchScore;
  readonly evidence: CaseEvidence | null;
  readonly transcript: Transcript | null;
}

export interface ReportBaseline {
  readonly run_id: string;
  readonly mean_score: number;
  readonly lower_bound_95: number;
  readonly passed_count: number;
  readonly case_count: number;
  /** Cases in both runs whose pass/fail changed, each way. */
  readonly newly_passing: number;
  readonly newly_failing: number;
  /** Mean of (score - baseline score) over the cases in both runs. */
  readonly mean_score_change: number;
  readonly shared_cases: number;
}

/** Failure codes that say the harness or the environment failed, not the case (the runner's list). */
export const HARNESS_FAILURE_CODES: ReadonlySet<string> = new Set(["sut.timeout", "sut.exception", "rubric.timeout"]);

/** Why an incomplete run stopped, as a CI reader needs it said. */
export function incompleteReasonText(reason: string | null): string {
  switch (reason) {
    case "cost_cap":
      return "the run stopped at its cost cap (--max-cost-usd)";
    case "interrupted":
      return "the run was interrupted (Ctrl-C or SIGTERM)";
    case "cancelled":
      return "the run was cancelled";
    case "units_missing":
      return "the merge was missing shards' units (--allow-incomplete)";
    default:
      return "the run did not finish";
  }
}

/** A trial's status: `error` when a harness-side failure decided it, else pass or fail. */
export function trialStatus(score: BenchScore): "pass" | "fail" | "error" {
  if (score.failure_modes.some((mode) => HARNESS_FAILURE_CODES.has(mode.code))) return "error";
  return score.passed ? "pass" : "fail";
}

/** A case whose trials disagree: some passed, some did not. */
export function isFlaky(reportCase: Pick<ReportCase, "trials">): boolean {
  const { trials } = reportCase;
  return trials !== null && trials.passed > 0 && trials.passed < trials.total;
}

/** The trials of a case that did not pass, in trial order (empty without trials). */
export function failingTrials(reportCase: Pick<ReportCase, "trial_runs">): readonly ReportTrial[] {
  return (reportCase.trial_runs ?? []).filter((trial) => trialStatus(trial.score) !== "pass");
}

/**
 * `error` when a harness-side failure decided the case's (first trial's) score, else `pass` when it passed
 * (with trials: every trial, as the run's passed_count counts it), else `fail`.
 */
export function caseStatus(reportCase: Pick<ReportCase, "score" | "trials">): "pass" | "fail" | "error" {
  const { score, trials } = reportCase;
  if (score.failure_modes.some((mode) => HARNESS_FAILURE_CODES.has(mode.code))) return "error";
  if (trials !== null) return trials.passed === trials.total ? "pass" : "fail";
  return score.passed ? "pass" : "fail";
}

/** The run's metered sums (a run whose agent ran behind the model bridge), or null. */
export function runMetered(run: ReportRun | CurrentRun): RunMetered | null {
  return currentRun(run).metered ?? null;
}

/**
 * One line on what the model bridge metered from the wire and what the rest of the cost is (self-reported by
 * the SUT); null when nothing was metered. Model names and hosts are as recorded: escape for the medium.
 */
export function meteredText(run: ReportRun | CurrentRun): string | null {
  const metered = runMetered(run);
  if (metered === null) return null;
  const unpriced =
    metered.unpriced_trials === 0
      ? ""
      : `; ${metered.unpriced_trials} trial(s) unpriced (no price for ${metered.unpriced_models.join(", ")}): their cost is what the SUT reported`;
  return (
    `metered from the wire over ${metered.trials} trial(s): ${metered.requests} requests, ${metered.input_tokens} input tokens (${metered.cached_input_tokens} cached, ${metered.cache_write_tokens} cache writes), ` +
    `${metered.output_tokens} output tokens, $${metered.cost_usd.toFixed(4)} priced by ${metered.price_tables.join(", ")}, upstream ${metered.upstream_hosts.join(", ")}; ` +
    `reported by the SUT itself $${metered.sut_reported_cost_usd.toFixed(4)}${unpriced}`
  );
}
