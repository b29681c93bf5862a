import { mkdtemp, readFile, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import fc from "fast-check";
import { PromotionVerdictSchema, upgradeReport } from "@eval/models";
import { PromotionGate, PromotionMustBeHumanAuthorized } from "./gate.ts";
import type { TierConfig } from "./tier-config.ts";
import { writeVerdict } from "./write-verdict.ts";
import { legacyReportWith, reportWith } from "./__fixtures__/reports.ts";

const CONFIG: TierConfig = Object.freeze({
  schema_version: "evalgate.trust_tiers.v1",
  calibrated: false,
  tiers: [
    { name: "untrusted", threshold: 0, min_cases: 0, min_held_out: 0, require_sandbox: false, min_trials: 1 },
    { name: "bronze", threshold: 0.6, min_cases: 10, min_held_out: 5, require_sandbox: false, min_trials: 1 },
    { name: "silver", threshold: 0.8, min_cases: 10, min_held_out: 5, require_sandbox: false, min_trials: 1 },
    { name: "gold", threshold: 0.9, min_cases: 20, min_held_out: 10, require_sandbox: false, min_trials: 1 },
  ],
  current: { "vuln-remediation": "bronze", "migration-chainguard-distroless": "untrusted", "top-class": "gold" },
  source: "docs/trust-tiers.yaml",
});
const MIN_CASES = { bronze: 10, silver: 14 };
const NOW = new Date("2026-11-22T04:00:00.000Z");
const gate = new PromotionGate(CONFIG);

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "promotion-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("PromotionGate.evaluate", () => {
  it("scenario 4: lower bound 0.78 then 0.80 against a 0.80 silver threshold flips the verdict", async () => {
    // Day 14: mean 0.85, stddev 0.12, lower bound 0.78. Day 15: a new case; lower bound 0.80.
    const day14 = gate.evaluate({
      taskClass: "vuln-remediation",
      report: reportWith({ lowerBound: 0.78, passed: 14, heldOut: 8, ragDerived: 7 }),
      minCasesForPromotion: MIN_CASES,
      chainVerified: true,
      now: NOW,
    });
    expect(day14).toMatchObject({
      current_tier: "bronze",
      target_tier: "silver",
      evidence_sufficient: false,
      threshold_at_target: 0.8,
      requires_human_approval: true,
    });
    expect(day14.reasons).toEqual(["lower_bound_95 0.78 < 0.8 required for silver (betting)"]);

    const day15 = gate.evaluate({
      taskClass: "vuln-remediation",
      report: reportWith({ lowerBound: 0.8, passed: 15, heldOut: 9, ragDerived: 7 }),
      minCasesForPromotion: MIN_CASES,
      chainVerified: true,
      now: NOW,
    });
    expect(day15).toMatchObject({
      target_tier: "silver",
      evidence_sufficient: true,
      reasons: ["all conditions met"],
      thresholds_calibrated: false,
      held_out_count: 9,
    });

    const path = await writeVerdict(day15, join(dir, "recommendations"));
    expect(path).toMatch(/recommendations\/2026-11-22T04-00-00\.000Z-vuln-remediation-silver-[0-9a-f]{8}\.json$/);
    expect(PromotionVerdictSchema.parse(JSON.parse(await readFile(path, "utf8")))).toEqual(day15);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // Nothing changed any tier: the gate's config is untouched and apply() still refuses.
    expect(CONFIG.current["vuln-remediation"]).toBe("bronze");
    expect(() => gate.apply(day15)).toThrow(PromotionMustBeHumanAuthorized);
  });

  it("lists every failing condition with its numbers", () => {
    const report = reportWith({
      lowerBound: 0.5,
      passed: 3,
      heldOut: 2,
      blockCodes: ["sut.timeout", "still_vulnerable"],
      complete: false,
    });
    const verdict = gate.evaluate({
      taskClass: "vuln-remediation",
      report,
      minCasesForPromotion: MIN_CASES,
      chainVerified: false,
      evidence: [reportWith({ lowerBound: 0.9, passed: 14, heldOut: 8, isolation: "subprocess" })],
      now: NOW,
    });
    expect(verdict.evidence_sufficient).toBe(false);
    expect(verdict.reasons).toEqual([
      "lower_bound_95 0.5 < 0.8 required for silver (betting)",
      "cases 6 < 10 required for silver",
      "passed_count 3 < 14 min_cases_for_promotion for silver",
      "held-out cases 2 < 5 required for silver",
      "block-severity failure modes present (2): still_vulnerable, sut.timeout",
      "the audit chain does not verify (run `evalgate verify`)",
      "the report is incomplete (3 of 6 cases; run partial:run-1)",
      "evidence mixes isolation classes (subprocess-permission x1, subprocess x1): scores are not comparable across them",
    ]);
  });

  it("refuses a run over a hand-picked subset, naming how many cases were left out", () => {
    // Every other condition holds: the 10 cases that pass, out of a task class of 15.
    const verdict = gate.evaluate({
      taskClass: "vuln-remediation",
      report: reportWith({ lowerBound: 0.85, passed: 14, heldOut: 8, ragDerived: 6, subsetOf: 20 }),
      minCasesForPromotion: MIN_CASES,
      chainVerified: true,
      now: NOW,
    });
    expect(verdict.evidence_sufficient).toBe(false);
    expect(verdict.report_scope).toBe("subset");
    expect(verdict.reasons).toEqual([
      'run run-1 scored a subset: 14 of 20 cases (filter "0*"), 6 left out; a promotion needs a run over the whole task class',
    ]);
  });

  it("never finds a report recorded before v2 sufficient, and says why", () => {
    const verdict = gate.evaluate({
      taskClass: "vuln-remediation",
      report: upgradeReport(legacyReportWith({ lowerBound: 0.95, passed: 14, heldOut: 8, ragDerived: 6 })),
      minCasesForPromotion: MIN_CASES,
      chainVerified: true,
      now: NOW,
    });
    expect(verdict.evidence_sufficient).toBe(false);
    expect(verdict).toMatchObject({
      report_scope: "unknown",
      bound_quantity: null,
      lower_bound_method: "bca_bootstrap",
    });
    expect(verdict.reasons).toEqual([
      "run run-1 was recorded as evalgate.bench_run_report.v1, whose bound (bca_bootstrap) is not valid at small n and which does not record its case selection: it cannot support a promotion; run the whole bench again",
    ]);
  });

  it("a tier that requires the sandbox refuses evidence from rubrics or a SUT that ran outside it", () => {
    const strict = new PromotionGate({
      ...CONFIG,
      tiers: CONFIG.tiers.map((tier) => (tier.name === "silver" ? { ...tier, require_sandbox: true } : tier)),
    });
    const base = { taskClass: "vuln-remediation", minCasesForPromotion: MIN_CASES, chainVerified: true, now: NOW };
    const outside = strict.evaluate({ ...base, report: reportWith({ lowerBound: 0.85, passed: 14, heldOut: 8 }) });
    expect(outside.reasons).toEqual([
      "silver requires the sandbox: the run's rubric isolation is subprocess-permission and its SUT ran as harness",
    ]);
    const inside = strict.evaluate({
      ...base,
      report: reportWith({ lowerBound: 0.85, passed: 14, heldOut: 8, isolation: "bwrap-permission" }),
    });
    expect(inside.evidence_sufficient).toBe(true);
    // A module SUT is in-process code, whatever the rubric's isolation (red-team finding).
    const module = strict.evaluate({
      ...base,
      report: {
        ...reportWith({ lowerBound: 0.85, passed: 14, heldOut: 8, isolation: "bwrap-permission" }),
        sut_isolation: "in-process",
      },
    });
    expect(module.reasons).toEqual([
      "silver requires the sandbox: the run's rubric isolation is bwrap-permission and its SUT ran as in-process",
    ]);
  });

  /** A v3 report whose first `steady` cases passed every one of `trials` trials and the rest failed their last. */
  const withTrials = (cases: number, steady: number, trials: number) => {
    const report = reportWith({ lowerBound: 0.85, passed: cases, heldOut: 8, trials, passHatK: steady / cases });
    const perCase = report.per_case.map((entry, i) => ({
      ...entry,
      trials: Array.from({ length: trials }, (_, t) => ({ ...entry.score, passed: i < steady || t < trials - 1 })),
      case_value: 0.9,
    }));
    return { ...report, per_case: perCase };
  };

  it("a tier that requires the sandbox takes an agent behind the model bridge, not one with the host's network", () => {
    const strict = new PromotionGate({
      ...CONFIG,
      tiers: CONFIG.tiers.map((tier) => (tier.name === "silver" ? { ...tier, require_sandbox: true } : tier)),
    });
    const base = { taskClass: "vuln-remediation", minCasesForPromotion: MIN_CASES, chainVerified: true, now: NOW };
    const report = reportWith({ lowerBound: 0.85, passed: 14, heldOut: 8, isolation: "bwrap-permission" });
    expect(strict.evaluate({ ...base, report: { ...report, sut_isolation: "bwrap-bridge" } }).evidence_sufficient).toBe(
      true,
    );
    const host = strict.evaluate({ ...base, report: { ...report, sut_isolation: "bwrap-network" } });
    expect(host.reasons).toEqual([
      "silver requires the sandbox: the run's rubric isolation is bwrap-permission and its SUT ran as bwrap-network",
    ]);
  });

  it("a tier or task class may require trials per case and a pass^k; older reports made one trial and record no pass^k", () => {
    const reliable = new PromotionGate({
      ...CONFIG,
      tiers: CONFIG.tiers.map((tier) =>
        tier.name === "silver" ? { ...tier, min_trials: 5, min_pass_hat_k: 0.6 } : tier,
      ),
    });
    const base = { taskClass: "vuln-remediation", minCasesForPromotion: MIN_CASES, chainVerified: true, now: NOW };
    const once = reliable.evaluate({ ...base, report: reportWith({ lowerBound: 0.85, passed: 14, heldOut: 8 }) });
    expect(once.reasons).toEqual(["trials per case 1 < 5 required for silver (run with --trials 5)"]);
    const flaky = reliable.evaluate({ ...base, report: withTrials(14, 6, 5) });
    expect(flaky.reasons).toEqual([
      "pass^5 lower bound 0.2061 < 0.6 required for silver (Clopper-Pearson: 6 of 14 cases passed every trial; point estimate 0.4286)",
    ]);
    const steady = reliable.evaluate({ ...base, report: withTrials(14, 14, 5) });
    expect(steady.evidence_sufficient).toBe(true);
    const classMinimum = reliable.evaluate({ ...base, minTrials: 8, report: withTrials(14, 14, 5) });
    expect(classMinimum.reasons).toEqual(["trials per case 5 < 8 the task class requires (min_trials)"]);
    const {
      trials_per_case: _t,
      reliability: _r,
      harness_error_count: _e,
      harness_errored_case_ids: _i,
      failed_trial_count: _f,
      ...v2
    } = reportWith({ lowerBound: 0.85, passed: 14, heldOut: 8 });
    const old = reliable.evaluate({
      ...base,
      report: upgradeReport({ ...v2, schema_version: "evalgate.bench_run_report.v2" }),
    });
    expect(old.reasons).toContain(
      "silver requires pass^k >= 0.6, which run run-1 (evalgate.bench_run_report.v2) does not record",
    );
  });

  it("min_pass_hat_k is judged on a lower bound, not the point estimate (attack: 9 of 10 cases reliable against 0.8)", () => {
    const reliable = new PromotionGate({
      ...CONFIG,
      tiers: CONFIG.tiers.map((tier) =>
        tier.name === "silver" ? { ...tier, min_trials: 3, min_pass_hat_k: 0.8 } : tier,
      ),
    });
    const verdict = reliable.evaluate({
      taskClass: "vuln-remediation",
      minCasesForPromotion: { ...MIN_CASES, silver: 10 },
      chainVerified: true,
      now: NOW,
      report: withTrials(10, 9, 3),
    });
    expect(verdict.evidence_sufficient).toBe(false);
    expect(verdict.reasons).toEqual([
      "pass^3 lower bound 0.6058 < 0.8 required for silver (Clopper-Pearson: 9 of 10 cases passed every trial; point estimate 0.9)",
    ]);
  });

  it("names the SUT it judges and the newer runs passed over", () => {
    const passedOver = [{ run_id: "partial:run-9", reason: "incomplete (3 of 14 cases)" }];
    const verdict = gate.evaluate({
      taskClass: "vuln-remediation",
      report: reportWith({ lowerBound: 0.85, passed: 14, heldOut: 8 }),
      minCasesForPromotion: MIN_CASES,
      chainVerified: true,
      passedOver,
      now: NOW,
    });
    expect(verdict).toMatchObject({
      sut_label: "replay",
      sut_digest: `blake3:${"f".repeat(64)}`,
      passed_over: passedOver,
      bound_quantity: "mean_score",
      lower_bound_method: "betting",
    });
  });

  it("fails a target tier the task class declares no case minimum for", () => {
    const verdict = gate.evaluate({
      taskClass: "vuln-remediation",
      targetTier: "gold",
      report: reportWith({ lowerBound: 0.95, passed: 20, heldOut: 10 }),
      minCasesForPromotion: MIN_CASES,
      chainVerified: true,
      now: NOW,
    });
    expect(verdict.reasons).toEqual([
      'task class "vuln-remediation" declares no min_cases_for_promotion for gold: it cannot reach that tier',
    ]);
    expect(verdict.min_passed_at_target).toBe(0);
  });

  it("defaults the target to the tier above the current one", () => {
    const verdict = gate.evaluate({
      taskClass: "migration-chainguard-distroless",
      report: reportWith({ lowerBound: 0.7, passed: 9, heldOut: 10, taskClass: "migration-chainguard-distroless" }),
      minCasesForPromotion: { bronze: 5 },
      chainVerified: true,
    });
    expect(verdict).toMatchObject({ current_tier: "untrusted", target_tier: "bronze", evidence_sufficient: true });
    expect(Date.parse(verdict.evaluated_at)).toBeGreaterThan(Date.parse("2026-01-01"));
  });

  it("refuses targets that are unknown, not above the current tier, or beyond the top, and foreign reports", () => {
    const report = reportWith({ lowerBound: 0.9, passed: 14, heldOut: 8 });
    const base = { taskClass: "vuln-remediation", report, minCasesForPromotion: MIN_CASES, chainVerified: true };
    expect(() => gate.evaluate({ ...base, targetTier: "platinum" })).toThrow(/unknown target tier "platinum"/);
    expect(() => gate.evaluate({ ...base, targetTier: "bronze" })).toThrow(/is not above/);
    expect(() =>
      gate.evaluate({
        ...base,
        taskClass: "top-class",
        report: reportWith({ lowerBound: 1, passed: 1, heldOut: 1, taskClass: "top-class" }),
      }),
    ).toThrow(/already at the highest tier/);
    expect(() => gate.evaluate({ ...base, taskClass: "unlisted" })).toThrow(
      /no current tier for task class "unlisted"/,
    );
    expect(() =>
      gate.evaluate({ ...base, evidence: [reportWith({ lowerBound: 1, passed: 1, heldOut: 1, taskClass: "other" })] }),
    ).toThrow(/is for task class "other"/);
  });

  it("is true exactly when every condition holds, and names each failing one (property)", () => {
    const isolation = fc.constantFrom("subprocess" as const, "subprocess-permission" as const, "microvm" as const);
    fc.assert(
      fc.property(
        fc.record({
          lowerBound: fc.double({ min: 0, max: 1, noNaN: true }),
          passed: fc.integer({ min: 0, max: 20 }),
          heldOut: fc.integer({ min: 0, max: 12 }),
          ragDerived: fc.integer({ min: 0, max: 8 }),
          blockCodes: fc.uniqueArray(fc.constantFrom("sut.timeout", "still_vulnerable", "rubric.timeout"), {
            maxLength: 2,
          }),
          complete: fc.boolean(),
          isolation,
          subsetOf: fc.option(fc.integer({ min: 21, max: 30 }), { nil: undefined }),
        }),
        fc.boolean(),
        fc.array(isolation, { maxLength: 3 }),
        fc.constantFrom("silver", "gold"),
        fc.option(fc.integer({ min: 0, max: 20 }), { nil: undefined }),
        (shape, chainVerified, evidenceIsolation, targetTier, minAtTarget) => {
          const report = reportWith(shape);
          const evidence = evidenceIsolation.map((name, index) =>
            reportWith({ lowerBound: 0.5, passed: 1, heldOut: 1, isolation: name, runId: `e${index}` }),
          );
          const minCases = minAtTarget === undefined ? {} : { [targetTier]: minAtTarget };
          const verdict = gate.evaluate({
            taskClass: "vuln-remediation",
            report,
            minCasesForPromotion: minCases,
            chainVerified,
            targetTier,
            evidence,
            now: NOW,
          });
          const tier = CONFIG.tiers.find((candidate) => candidate.name === targetTier)!;
          const conditions = [
            shape.subsetOf === undefined,
            report.lower_bound_95 >= tier.threshold,
            report.case_count >= tier.min_cases,
            minAtTarget !== undefined && shape.passed >= minAtTarget,
            shape.heldOut >= tier.min_held_out,
            shape.blockCodes.length === 0,
            chainVerified,
            shape.complete,
            evidenceIsolation.every((name) => name === shape.isolation),
          ];
          const failing = conditions.filter((holds) => !holds).length;
          expect(verdict.evidence_sufficient).toBe(failing === 0);
          expect(verdict.reasons).toEqual(
            failing === 0 ? ["all conditions met"] : expect.arrayContaining([expect.any(String)]),
          );
          if (failing > 0) expect(verdict.reasons).toHaveLength(failing);
          expect(verdict.requires_human_approval).toBe(true);
          // Pure: the same input gives the same verdict.
          expect(
            gate.evaluate({
              taskClass: "vuln-remediation",
              report,
              minCasesForPromotion: minCases,
              chainVerified,
              targetTier,
              evidence,
              now: NOW,
            }),
          ).toEqual(verdict);
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe("PromotionGate.apply", () => {
  it("always throws, naming the manual path, whatever it is given", () => {
    for (const args of [[], [{ evidence_sufficient: true }], ["vuln-remediation", "gold"]]) {
      expect(() => gate.apply(...args)).toThrow(/reviewed change to docs\/trust-tiers\.yaml/);
    }
    try {
      gate.apply();
    } catch (error) {
      expect(error).toMatchObject({ code: "EVAL_PROMOTION_MUST_BE_HUMAN_AUTHORIZED" });
    }
  });
});

describe("writeVerdict", () => {
  it("writes distinct files for verdicts in the same millisecond and reports an unwritable directory", async () => {
    const make = (lowerBound: number) =>
      gate.evaluate({
        taskClass: "vuln-remediation",
        report: reportWith({ lowerBound, passed: 14, heldOut: 8 }),
        minCasesForPromotion: MIN_CASES,
        chainVerified: true,
        now: NOW,
      });
    await writeVerdict(make(0.81), dir);
    await writeVerdict(make(0.5), dir);
    expect(await readdir(dir)).toHaveLength(2);
    const { writeFile } = await import("node:fs/promises");
    await writeFile(join(dir, "file"), "x");
    await expect(writeVerdict(make(0.81), join(dir, "file"))).rejects.toMatchObject({ code: "EVAL_IO" });
  });
});
