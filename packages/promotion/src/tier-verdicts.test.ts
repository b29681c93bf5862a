// The views' verdicts (`report`, `show`, the CI summary) are the written verdict's: one evidence rule, judged
// through a real chain. A record whose stored figures were inflated is judged on its per-case data in both.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRunRecord, getHostFingerprint, readChainHead } from "@eval/audit-chain";
import type { EvalWarning } from "@eval/errors";
import type { AnyBenchRunReport, BenchRunReportInput, PromotionVerdict } from "@eval/models";
import { caseGateStatistics } from "@eval/statistics";
import { runReport } from "@eval/test-utils";
import { issueVerdict } from "./issue-verdict.ts";
import { loadTierConfig } from "./tier-config.ts";
import { loadTiersFor, tierVerdicts } from "./tier-verdicts.ts";

const TIERS = join(import.meta.dirname, "..", "..", "..", "docs", "trust-tiers.yaml");
const TASK_CLASS = { name: "vuln-remediation", minCasesForPromotion: { bronze: 10, silver: 15, gold: 32 } };
let stateDir: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "tier-verdicts-"));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

async function append(report: BenchRunReportInput): Promise<AnyBenchRunReport> {
  const runsDir = join(stateDir, "runs");
  const host = await getHostFingerprint(stateDir);
  const { record } = await appendRunRecord(
    { ...report, prev_hash: (await readChainHead(runsDir)).head, host_fingerprint: host },
    { runsDir, hostFingerprint: host },
  );
  return record.report;
}

/** A binary run of 12 cases (8 held out) whose first `passed` cases passed, its figures computed from its scores as the runner does. */
function honestRun(runId: string, passed: number): BenchRunReportInput {
  const template = runReport({ cases: 12, heldOut: 8, runId });
  const perCase = template.per_case.map((entry, i) => ({
    ...entry,
    score: {
      passed: i < passed,
      score: i < passed ? 1 : 0,
      breakdown: {},
      failure_modes: [],
      cost_usd: 0,
      wall_clock_ms: i + 1,
    },
  }));
  const figures = caseGateStatistics(
    perCase.map((c) => [c.score]),
    { scoreKind: "binary", trials: 1, orderSeed: template.selection.selected_case_ids_digest },
  );
  const share = figures.passedCount / 12;
  return {
    ...template,
    per_case: perCase,
    score_kind: "binary",
    lower_bound_method: "clopper_pearson",
    bound_quantity: "pass_rate",
    mean_score: figures.mean,
    score_stddev: figures.stddev,
    lower_bound_95: figures.lowerBound95,
    passed_count: figures.passedCount,
    failed_trial_count: 12 - figures.passedCount,
    reliability: { ...template.reliability, pass_at_1: share, pass_at_k: share, pass_hat_k: share },
  };
}

const withoutTime = ({ evaluated_at: _at, ...rest }: PromotionVerdict) => rest;

describe("tierVerdicts", () => {
  it("gives every tier above the current one the verdict promote-verdict writes, pooled attempts and recomputed figures included", async () => {
    await append(honestRun("run-0", 7));
    // A rerun of the same SUT passes all 12: judged alone it would reach bronze; pooled with run-0 it does not.
    const rerun = await append(honestRun("run-1", 12));
    const warnings: EvalWarning[] = [];
    const runsDir = join(stateDir, "runs");
    const preview = await tierVerdicts({
      tiersPath: TIERS,
      runsDir,
      report: rerun,
      taskClass: TASK_CLASS,
      chainVerified: true,
      onWarning: (w) => warnings.push(w),
    });
    expect(warnings).toEqual([]);
    expect(preview.tiers.map((tier) => tier.name)).toEqual(["untrusted", "bronze", "silver", "gold"]);
    expect(preview.verdicts.map((v) => v.target_tier)).toEqual(["bronze", "silver", "gold"]);
    const config = await loadTierConfig(TIERS);
    for (const shown of preview.verdicts) {
      const written = await issueVerdict({
        config,
        runsDir,
        recommendationsDir: join(stateDir, "rec"),
        taskClass: TASK_CLASS,
        runId: "run-1",
        targetTier: shown.target_tier,
      });
      expect(withoutTime(shown)).toEqual(withoutTime(written.verdict));
    }
    const bronze = preview.verdicts[0]!;
    expect(bronze.evidence_pool?.runs_pooled).toEqual(["run-0", "run-1"]);
    expect(bronze.evidence_pool?.run_figures).toMatchObject({ run_id: "run-1", passed_count: 12 });
    expect(bronze.lower_bound_95).toBeLessThan(0.6);
    expect(bronze.evidence_sufficient).toBe(false);
  });

  it("judges a record whose stored figures were inflated on its per-case data, and says it was tampered with", async () => {
    const forged = await append({ ...honestRun("run-0", 6), lower_bound_95: 0.99, mean_score: 0.99 });
    const { verdicts } = await tierVerdicts({
      tiersPath: TIERS,
      runsDir: join(stateDir, "runs"),
      report: forged,
      taskClass: TASK_CLASS,
      chainVerified: true,
      onWarning: () => undefined,
    });
    expect(verdicts[0]!.evidence_sufficient).toBe(false);
    expect(verdicts[0]!.lower_bound_95).toBeLessThan(0.6);
    expect(verdicts[0]!.reasons.join("\n")).toMatch(/tampered record: run run-0/);
  });

  it("gives no verdict, and says why, without a tier file, a loadable task class or a current tier", async () => {
    const report = await append(honestRun("run-0", 12));
    const runsDir = join(stateDir, "runs");
    const codes: string[] = [];
    const onWarning = (w: EvalWarning) => codes.push(w.code);
    const base = { runsDir, report, taskClass: TASK_CLASS, chainVerified: true, onWarning };
    expect(await tierVerdicts({ ...base, tiersPath: join(stateDir, "missing.yaml") })).toEqual({
      verdicts: [],
      tiers: [],
    });
    const unavailable = await tierVerdicts({
      ...base,
      tiersPath: TIERS,
      taskClass: { unavailable: "no bench/vuln-remediation" },
    });
    expect(unavailable.verdicts).toEqual([]);
    expect(unavailable.tiers).toHaveLength(4);
    const other = join(stateDir, "tiers.yaml");
    await writeFile(
      other,
      "schema_version: evalgate.trust_tiers.v1\ncalibrated: false\ntiers:\n  - { name: untrusted, threshold: 0, min_cases: 0, min_held_out: 0 }\n  - { name: bronze, threshold: 0.5, min_cases: 1, min_held_out: 0 }\ncurrent:\n  demo: untrusted\n",
    );
    expect((await tierVerdicts({ ...base, tiersPath: other })).verdicts).toEqual([]);
    expect(codes).toEqual(["report.no_tiers", "report.no_task_class", "report.no_current_tier"]);
    await expect(loadTiersFor(other, "vuln-remediation")).rejects.toMatchObject({ code: "EVAL_TIER_CONFIG_INVALID" });
    expect((await loadTiersFor(other, "demo")).current).toEqual({ demo: "untrusted" });
  });
});
