import { describe, expect, it } from "vitest";
import {
  BenchCaseSchema,
  BenchRunReportSchema,
  BenchScoreSchema,
  CaseTomlSchema,
  DigestsFileSchema,
  FailureModeSchema,
  FailureModesFileSchema,
  formatIssues,
  PromotionVerdictSchema,
  parseWire,
  RubricRequestSchema,
  RubricResponseSchema,
  safeParseWire,
  TrustTiersFileSchema,
} from "./index.ts";
import { PromotionVerdictV2Schema } from "./promotion.ts";
import { HEX64, validCaseToml, validReport, validScore } from "./fixtures.test-helpers.ts";

describe("BenchScore", () => {
  it("parses a valid score into a deeply frozen value", () => {
    const score = parseWire(BenchScoreSchema, validScore);
    expect(score.score).toBe(0.9);
    expect(Object.isFrozen(score)).toBe(true);
    expect(Object.isFrozen(score.breakdown)).toBe(true);
    expect(Object.isFrozen(score.failure_modes)).toBe(true);
    expect(Object.isFrozen(score.failure_modes[0])).toBe(true);
    expect(() => {
      (score as { score: number }).score = 1;
    }).toThrow(TypeError);
  });

  it.each([
    ["score above 1", { score: 1.01 }, "score"],
    ["score below 0", { score: -0.1 }, "score"],
    ["negative cost", { cost_usd: -1 }, "cost_usd"],
    ["fractional wall clock", { wall_clock_ms: 1.5 }, "wall_clock_ms"],
    ["an extra key", { llm_confidence: 0.9 }, "(root)"],
    ["a severity outside the enum", { failure_modes: [{ code: "x", severity: "fatal" }] }, "failure_modes.0.severity"],
    ["an infinite breakdown value", { breakdown: { a: Number.POSITIVE_INFINITY } }, "breakdown.a"],
  ])("rejects %s, naming the field", (_name, patch, path) => {
    const result = safeParseWire(BenchScoreSchema, { ...validScore, ...patch });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.issues.map((issue) => issue.path)).toContain(path);
  });

  it("defaults a failure mode's detail to null", () => {
    expect(parseWire(FailureModeSchema, { code: "still_vulnerable", severity: "block" }).detail).toBeNull();
  });
});

describe("case.toml and BenchCase", () => {
  it("accepts a curated case without commit_sha", () => {
    expect(CaseTomlSchema.parse(validCaseToml).case_id).toBe("001-cross-spawn");
  });

  it("requires commit_sha exactly when source is not curated", () => {
    const derived = { ...validCaseToml, source: "outcome-ledger-derived" };
    const missing = safeParseWire(CaseTomlSchema, derived);
    expect(missing.success).toBe(false);
    if (!missing.success) expect(formatIssues(missing.issues)).toContain("commit_sha: required");
    expect(CaseTomlSchema.safeParse({ ...derived, commit_sha: "abc1234" }).success).toBe(true);
    expect(CaseTomlSchema.safeParse({ ...validCaseToml, commit_sha: "abc1234" }).success).toBe(false);
  });

  it.each([
    ["a local (offset-less) timestamp", { added_at: "2026-10-01T00:00:00" }],
    ["a short canary pin", { cassette_canary_pin: "abc" }],
    ["an uppercase canary pin", { cassette_canary_pin: "0123456789ABCDEF0123456789ABCDEF" }],
    ["an unknown disposition", { disposition: "maybe" }],
    ["an unknown key", { notes: "x" }],
    ["a rubric timeout above 300 s", { rubric_wall_clock_seconds: 301 }],
    ["a case id with a slash", { case_id: "../etc" }],
  ])("rejects %s", (_name, patch) => {
    expect(CaseTomlSchema.safeParse({ ...validCaseToml, ...patch }).success).toBe(false);
  });

  it("loads a BenchCase with derived paths and digest", () => {
    const loaded = parseWire(BenchCaseSchema, {
      ...validCaseToml,
      case_path: "/b/cases/001-cross-spawn",
      input_path: "/b/cases/001-cross-spawn/input",
      expected_path: "/b/cases/001-cross-spawn/expected",
      cassette_path: null,
      case_digest: `blake3:${HEX64}`,
    });
    expect(loaded.commit_sha).toBeNull();
    expect(BenchCaseSchema.safeParse({ ...loaded, case_digest: "blake3:xyz" }).success).toBe(false);
  });
});

describe("bench files", () => {
  it("validates failure_modes.yaml severities and descriptions", () => {
    expect(
      FailureModesFileSchema.safeParse({ still_vulnerable: { severity: "block", description: "x" } }).success,
    ).toBe(true);
    expect(
      FailureModesFileSchema.safeParse({ still_vulnerable: { severity: "fatal", description: "x" } }).success,
    ).toBe(false);
    expect(
      FailureModesFileSchema.safeParse({ still_vulnerable: { severity: "warn", description: "  " } }).success,
    ).toBe(false);
    expect(FailureModesFileSchema.safeParse({ "Bad Code": { severity: "warn", description: "x" } }).success).toBe(
      false,
    );
  });

  it("validates digests.yaml", () => {
    const file = {
      schema_version: "evalgate.digests.v1",
      serialization: "evalgate.case-tree.v2",
      cases: { "001-a": { digest: `blake3:${HEX64}`, files: { "input/package.json": `blake3:${HEX64}` } } },
    };
    expect(DigestsFileSchema.safeParse(file).success).toBe(true);
    expect(DigestsFileSchema.safeParse({ ...file, serialization: "tar" }).success).toBe(false);
    // v1 digests left case.toml out: a digests.yaml written with them must be re-signed, never read as v2.
    expect(DigestsFileSchema.safeParse({ ...file, serialization: "evalgate.case-tree.v1" }).success).toBe(false);
  });
});

describe("BenchRunReport", () => {
  it("accepts a valid report and rejects an unknown isolation class or a bad chain hash", () => {
    expect(BenchRunReportSchema.parse(validReport).complete).toBe(true);
    expect(BenchRunReportSchema.safeParse({ ...validReport, isolation_class: "docker" }).success).toBe(false);
    expect(BenchRunReportSchema.safeParse({ ...validReport, prev_hash: "sha256:00" }).success).toBe(false);
    expect(BenchRunReportSchema.safeParse({ ...validReport, lower_bound_95: 1.2 }).success).toBe(false);
    expect(BenchRunReportSchema.safeParse({ ...validReport, host_fingerprint: "laptop" }).success).toBe(false);
  });
});

describe("trust tiers and verdicts", () => {
  const tiers = {
    schema_version: "evalgate.trust_tiers.v1",
    calibrated: false,
    tiers: [
      { name: "bronze", threshold: 0.6, min_cases: 0, min_held_out: 0 },
      { name: "silver", threshold: 0.8, min_cases: 0, min_held_out: 5 },
    ],
    current: { "vuln-remediation": "bronze" },
  };

  it("accepts ordered tiers and rejects unknown current tiers, duplicates and falling thresholds", () => {
    expect(TrustTiersFileSchema.safeParse(tiers).success).toBe(true);
    const unknown = safeParseWire(TrustTiersFileSchema, { ...tiers, current: { "vuln-remediation": "emerald" } });
    expect(unknown.success).toBe(false);
    if (!unknown.success) expect(formatIssues(unknown.issues)).toContain('unknown tier "emerald"');
    expect(TrustTiersFileSchema.safeParse({ ...tiers, tiers: [tiers.tiers[0], tiers.tiers[0]] }).success).toBe(false);
    expect(TrustTiersFileSchema.safeParse({ ...tiers, tiers: [...tiers.tiers].reverse() }).success).toBe(false);
  });

  const verdictV3 = () => ({
    schema_version: "evalgate.promotion_verdict.v3",
    task_class: "vuln-remediation",
    current_tier: "bronze",
    target_tier: "silver",
    evidence_sufficient: false,
    reasons: ["lower_bound_95 0.78 < silver threshold 0.80"],
    sut_label: "replay",
    sut_digest: `blake3:${HEX64}`,
    lower_bound_95: 0.78,
    lower_bound_method: "betting",
    bound_quantity: "mean_score",
    threshold_at_target: 0.8,
    report_scope: "full",
    case_count: 12,
    min_cases_at_target: 10,
    passed_count: 10,
    min_passed_at_target: 10,
    held_out_count: 5,
    min_held_out_at_target: 5,
    isolation_class: "subprocess",
    report_run_id: "r",
    report_chain_head: null,
    passed_over: [],
    thresholds_calibrated: false,
    evaluated_at: "2026-11-22T03:00:00Z",
    requires_human_approval: true as const,
  });

  it("insists a verdict requires human approval", () => {
    const verdict = verdictV3();
    expect(PromotionVerdictSchema.safeParse(verdict).success).toBe(true);
    expect(PromotionVerdictSchema.safeParse({ ...verdict, requires_human_approval: false }).success).toBe(false);
    expect(PromotionVerdictSchema.safeParse({ ...verdict, reasons: [] }).success).toBe(false);
  });

  it("a v3 verdict counts excluded runs per reason with a bounded sample; a v2 verdict naming each run stays valid as v2", () => {
    const pool = {
      runs_pooled: ["r"],
      attempts_per_case: 1,
      attempts_recorded: 12,
      attempts_unused: 0,
      harness_faults_excluded: 0,
      distinct_suts_on_held_out: 2,
      run_figures: { run_id: "r", lower_bound_95: 0.7, mean_score: 0.8, passed_count: 10 },
    };
    const v3 = {
      ...verdictV3(),
      evidence_pool: { ...pool, runs_excluded: [{ reason: "another SUT", count: 99_990, newest: ["a", "b"] }] },
    };
    expect(PromotionVerdictSchema.safeParse(v3).success).toBe(true);
    const eleven = Array.from({ length: 11 }, (_, i) => `run-${i}`);
    const tooMany = {
      ...v3,
      evidence_pool: { ...pool, runs_excluded: [{ reason: "another SUT", count: 11, newest: eleven }] },
    };
    expect(PromotionVerdictSchema.safeParse(tooMany).success).toBe(false);
    const v2 = {
      ...verdictV3(),
      schema_version: "evalgate.promotion_verdict.v2",
      evidence_pool: { ...pool, runs_excluded: [{ run_id: "a", reason: "another SUT" }] },
    };
    expect(PromotionVerdictSchema.safeParse(v2).success).toBe(false);
    expect(PromotionVerdictV2Schema.safeParse(v2).success).toBe(true);
  });
});

describe("rubric envelope", () => {
  it("round-trips a request and a response", () => {
    const request = {
      schema_version: "evalgate.rubric_request.v1",
      case: {
        ...validCaseToml,
        case_path: "/c",
        input_path: "/c/input",
        expected_path: "/c/expected",
        cassette_path: null,
        case_digest: `blake3:${HEX64}`,
      },
      harness_output: { cost_usd: 0.02, diff: "--- a\n+++ b\n" },
      context: { workspace_path: null },
    };
    const parsed = RubricRequestSchema.parse(request);
    expect(parsed.harness_output).toMatchObject({ diff: "--- a\n+++ b\n" });
    expect(
      RubricResponseSchema.safeParse({ schema_version: "evalgate.rubric_response.v1", score: validScore }).success,
    ).toBe(true);
    expect(
      RubricResponseSchema.safeParse({ schema_version: "evalgate.rubric_response.v2", score: validScore }).success,
    ).toBe(false);
    expect(RubricRequestSchema.safeParse({ ...request, harness_output: { cost_usd: -1 } }).success).toBe(false);
  });
});
