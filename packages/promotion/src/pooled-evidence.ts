// Every attempt counts: a verdict is about a SUT on a task class's cases, not about the run someone picked. It
// pools every executed attempt recorded in the chain for the same task class, SUT, rubric and isolation on the
// judged run's cases, so neither rerunning until a run passes nor naming the luckiest run with --run moves it.
import type { EvalError } from "@eval/errors";
import { EXCLUDED_RUNS_SAMPLE, unrecordedIn, upgradeReport } from "@eval/models";
import type { BenchRunReport, BenchScore, PromotionVerdict } from "@eval/models";
import { caseRefsOf, chainCatalog, poolingKeyOf } from "./evidence-catalog.ts";
import type { CaseRef, EvidenceCatalog, PoolingKey } from "./evidence-catalog.ts";
import { checkRecordedFigures, recomputeFigures } from "./recorded-figures.ts";

type EvidencePool = NonNullable<PromotionVerdict["evidence_pool"]>;
/** A record with the judged run's pooling key (so one with a bound a gate may read), upgraded. */
type GatedReport = BenchRunReport;

/** A record that kept no bound a gate may read (v1), told from its catalog row's version by the upgrade. */
const unbound = (key: PoolingKey): boolean => unrecordedIn(key.schema_version)?.bound === true;

/**
 * Attempts that failed in the harness itself, not in the SUT: `harness.*` codes. A SUT's crash, bad output or
 * own timeout (`sut.*`) is the SUT failing an attempt, and counts as one; so is a rubric past its deadline
 * (the rubric runs the SUT's work, which can hang it on exactly the cases the SUT cannot solve).
 */
function isHarnessFault(score: BenchScore): boolean {
  return score.failure_modes.some((mode) => mode.code.startsWith("harness."));
}

/**
 * Why a run is left out whole for its agent's infrastructure (`agent.infrastructure`: the harness saw it fail
 * before the agent could act), or null. Whole runs only: leaving out the one attempt would let a SUT that
 * could provoke it pick which of its attempts count.
 */
function infrastructureFailure(report: GatedReport): string | null {
  const failed = report.per_case.flatMap((entry) =>
    attemptsOf(entry).flatMap((score) =>
      score.failure_modes
        .filter((mode) => mode.code === "agent.infrastructure")
        .map((mode) => ({ case_id: entry.case_id, detail: mode.detail ?? "" })),
    ),
  );
  if (failed.length === 0) return null;
  const first = failed[0]!;
  return `agent infrastructure failure on ${failed.length} attempt(s), first ${first.case_id}: ${first.detail.split("\n")[0]!.slice(0, 160)}`;
}

/** Deterministic text of a score: a cache hit returns the stored score unchanged, so equal text is the same attempt. */
function attemptKey(trial: number, score: BenchScore): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === "object"
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
          )
        : value;
  return `${trial}\u0000${JSON.stringify(sorted(score))}`;
}

/** Why a record of the task class is not pooled with the judged run, or null when it is. */
function exclusion(key: PoolingKey, judged: GatedReport): string | null {
  if (unbound(key)) return "recorded before report v2 (no valid bound)";
  if (key.sut_digest !== judged.sut_digest) return "another SUT";
  if (key.rubric_digest !== judged.rubric_digest) return "another rubric";
  if (key.isolation_class !== judged.isolation_class || key.sut_isolation !== judged.sut_isolation)
    return "another isolation";
  if (key.cassette_corpus_digest !== judged.cassette_corpus_digest || key.score_kind !== judged.score_kind)
    return "another corpus or score kind";
  return null;
}

type RecordedCase = GatedReport["per_case"][number];
const digestOf = (entry: RecordedCase): string | undefined => entry.case_digest;

/**
 * Which of the judged run's cases a recorded case is (its case_id there), or undefined: by content digest when
 * both carry one, so a renamed or re-numbered case keeps its evidence and a changed case is a new case; by id
 * only where a report was recorded before case digests were kept. Cases of the judged run that share a digest
 * (the same files under other canary pins) are told apart by id.
 */
function caseMatcher(judged: BenchRunReport): (entry: CaseRef) => string | undefined {
  const byId = new Map(judged.per_case.map((entry) => [entry.case_id, entry]));
  const byDigest = new Map<string, string[]>();
  for (const entry of judged.per_case) {
    const digest = digestOf(entry);
    if (digest !== undefined) byDigest.set(digest, [...(byDigest.get(digest) ?? []), entry.case_id]);
  }
  return ([caseId, digest]) => {
    const sameId = byId.get(caseId);
    if (digest === null || (sameId !== undefined && digestOf(sameId) === undefined)) return sameId?.case_id;
    const ids = byDigest.get(digest) ?? [];
    return ids.length === 1 ? ids[0] : ids.find((id) => id === caseId);
  };
}

const refOf = (entry: RecordedCase): CaseRef => [entry.case_id, digestOf(entry) ?? null];

const attemptsOf = (entry: GatedReport["per_case"][number]): BenchScore[] =>
  entry.trials === undefined ? [entry.score] : [...entry.trials];

export interface PooledEvidence {
  /** The judged run with its per_case replaced by the pooled attempts and every figure recomputed from them. */
  readonly report: BenchRunReport;
  readonly pool: EvidencePool;
  /** A pooled record whose stored figures disagreed with its per-case data (exit 5), else null. */
  readonly tampered: EvalError | null;
}

/**
 * Pools the chain's attempts for the judged run (a v3 report). Records are taken oldest first from `catalog`
 * (default: the chain itself, every record read); a record whose figures were forged is left out and reported.
 * Only the catalog's pooling keys decide what is left out; what is pooled is read from the chain and its own
 * key checked again, so a catalog can hide nothing it does not list and add nothing the chain does not hold.
 * Each case keeps its distinct attempts (cache hits dropped), harness faults excluded; every case then
 * contributes its first m attempts, m the fewest any case has, so retrying only the failed cases (or a crash
 * that is retried because it was not cached) adds nothing until every case has been attempted again.
 */
export async function poolEvidence(
  runsDir: string,
  judged: BenchRunReport,
  catalog: EvidenceCatalog = chainCatalog(runsDir),
): Promise<PooledEvidence> {
  const caseIds = new Set(judged.per_case.map((entry) => entry.case_id));
  const heldOut = new Set(
    judged.per_case.filter((entry) => entry.curation_class === "held-out").map((entry) => entry.case_id),
  );
  const matchCase = caseMatcher(judged);
  // A catalog shares one case list between the runs that hold the same cases: each list is matched once.
  const touched = new WeakMap<readonly CaseRef[], boolean>();
  const touchesHeldOut = (cases: readonly CaseRef[]): boolean => {
    let known = touched.get(cases);
    if (known === undefined) touched.set(cases, (known = cases.some((ref) => heldOut.has(matchCase(ref) ?? ""))));
    return known;
  };
  const suts = new Set<string>();
  const attempts = new Map<string, Map<string, BenchScore>>([...caseIds].map((id) => [id, new Map()]));
  const pooled: string[] = [];
  const excluded = new ExcludedRuns();
  let harnessFaults = 0;
  let tampered: EvalError | null = null;
  const countSut = (key: PoolingKey, cases: readonly CaseRef[]): void => {
    if (!unbound(key) && key.rubric_digest === judged.rubric_digest && touchesHeldOut(cases)) suts.add(key.sut_digest);
  };
  for await (const run of catalog.runs(judged.task_class)) {
    const listed = exclusion(run.key, judged);
    if (listed !== null) {
      countSut(run.key, run.cases);
      excluded.add(run.run_id, listed);
      continue;
    }
    // Listed as the judged run's: from here on the record itself speaks, not the catalog.
    const stored = (await catalog.read(run.file)).report;
    const key = poolingKeyOf(stored);
    countSut(key, caseRefsOf(stored));
    const report = upgradeReport(stored) as GatedReport;
    const reason = exclusion(key, judged) ?? pooledExclusion(report);
    if (reason !== null) {
      if (reason === TAMPERED) tampered ??= checkRecordedFigures(report).tampered;
      excluded.add(report.run_id, reason);
      continue;
    }
    pooled.push(report.run_id);
    for (const entry of report.per_case) {
      const seen = attempts.get(matchCase(refOf(entry)) ?? "");
      if (seen === undefined) continue;
      attemptsOf(entry).forEach((score, trial) => {
        if (isHarnessFault(score)) harnessFaults += 1;
        else if (!seen.has(attemptKey(trial, score))) seen.set(attemptKey(trial, score), score);
      });
    }
  }
  const withAttempts = judged.per_case.filter((entry) => attempts.get(entry.case_id)!.size > 0);
  const m = withAttempts.length === 0 ? 0 : Math.min(...withAttempts.map((entry) => attempts.get(entry.case_id)!.size));
  const recorded = [...attempts.values()].reduce((sum, seen) => sum + seen.size, 0);
  const perCase = withAttempts.map((entry) => {
    const used = [...attempts.get(entry.case_id)!.values()].slice(0, m);
    const base = {
      case_id: entry.case_id,
      curation_class: entry.curation_class,
      ...(entry.case_digest === undefined ? {} : { case_digest: entry.case_digest }),
      score: used[0]!,
    };
    return m === 1
      ? base
      : { ...base, trials: used, case_value: Math.min(1, Math.max(0, used.reduce((sum, s) => sum + s.score, 0) / m)) };
  });
  const pooledReport = pooledRun(judged, perCase, Math.max(m, 1));
  return {
    report: pooledReport,
    pool: {
      runs_pooled: pooled,
      runs_excluded: excluded.summary(),
      attempts_per_case: m,
      attempts_recorded: recorded,
      attempts_unused: recorded - m * withAttempts.length,
      harness_faults_excluded: harnessFaults,
      distinct_suts_on_held_out: suts.size,
      run_figures: {
        run_id: judged.run_id,
        lower_bound_95: judged.lower_bound_95,
        mean_score: judged.mean_score,
        passed_count: judged.passed_count,
      },
    },
    tampered,
  };
}

const TAMPERED = "tampered figures";

/** The runs left out, per reason: a count and the newest EXCLUDED_RUNS_SAMPLE ids (runs arrive oldest first). */
class ExcludedRuns {
  readonly #byReason = new Map<string, { count: number; newest: string[] }>();
  add(runId: string, reason: string): void {
    let entry = this.#byReason.get(reason);
    if (entry === undefined) this.#byReason.set(reason, (entry = { count: 0, newest: [] }));
    entry.count += 1;
    entry.newest.push(runId);
    if (entry.newest.length > EXCLUDED_RUNS_SAMPLE) entry.newest.shift();
  }
  summary(): EvidencePool["runs_excluded"] {
    return [...this.#byReason].map(([reason, { count, newest }]) => ({ reason, count, newest: newest.reverse() }));
  }
}

/** Why a record with the judged run's pooling key is still left out (forged figures, agent infrastructure), or null. */
function pooledExclusion(report: GatedReport): string | null {
  if (checkRecordedFigures(report).tampered !== null) return TAMPERED;
  return infrastructureFailure(report);
}

/** The judged run's report over the pooled cases, every figure the gate reads recomputed from them. */
function pooledRun(judged: BenchRunReport, perCase: BenchRunReport["per_case"], m: number): BenchRunReport {
  const base: BenchRunReport = { ...judged, per_case: perCase, trials_per_case: m };
  const figures = recomputeFigures(base);
  const allPassed = figures.pass_hat_k ?? 0;
  return {
    ...base,
    mean_score: figures.mean_score,
    lower_bound_95: figures.lower_bound_95,
    lower_bound_method: figures.lower_bound_method,
    passed_count: figures.passed_count,
    block_severity_failure_modes: figures.block_severity_failure_modes,
    reliability: { ...judged.reliability, case_count: perCase.length, pass_hat_k: allPassed },
  };
}
