import { describe, expect, it } from "vitest";
import type { BenchScore } from "@eval/models";
import { harnessFailureScore, resolveRubricScore } from "./scoring.ts";

const contract = {
  breakdownKeys: new Set(["quality"]),
  failureModeTaxonomy: {
    still_vulnerable: { severity: "block" as const, description: "x" },
    noisy_diff: { severity: "warn" as const, description: "y" },
  },
  scoreKind: "graded" as const,
};
const binary = { ...contract, scoreKind: "binary" as const };
const measured = { wallClockMs: 1234.4, costUsd: 0.02 };
const rubricSaid = (extra: Partial<BenchScore> = {}): BenchScore =>
  ({
    passed: true,
    score: 0.9,
    breakdown: { quality: 0.9 },
    failure_modes: [],
    cost_usd: 50,
    wall_clock_ms: 1,
    ...extra,
  }) as BenchScore;

describe("resolveRubricScore", () => {
  it("keeps an honest score and replaces cost and wall clock with what the harness measured", () => {
    expect(resolveRubricScore(rubricSaid(), contract, measured)).toEqual({
      passed: true,
      score: 0.9,
      breakdown: { quality: 0.9 },
      failure_modes: [],
      cost_usd: 0.02,
      wall_clock_ms: 1234,
    });
  });

  it("adversary: breakdown key llm_confidence is dropped and becomes rubric.unknown_breakdown_key (block)", () => {
    const score = resolveRubricScore(
      rubricSaid({ breakdown: { quality: 0.9, llm_confidence: 0.99 } }),
      contract,
      measured,
    );
    expect(score.breakdown).toEqual({ quality: 0.9 });
    expect(score.failure_modes).toEqual([
      { code: "rubric.unknown_breakdown_key", severity: "block", detail: "llm_confidence" },
    ]);
    expect(score.passed).toBe(false);
    expect(score.score).toBe(0.9);
  });

  it("adversary: an unknown failure code becomes rubric.unknown_failure_mode with the original code in detail", () => {
    const score = resolveRubricScore(
      rubricSaid({ failure_modes: [{ code: "made_up", severity: "info", detail: "d" }] }),
      contract,
      measured,
    );
    expect(score.failure_modes).toEqual([
      { code: "rubric.unknown_failure_mode", severity: "block", detail: "made_up: d" },
    ]);
    expect(score.passed).toBe(false);
  });

  it("takes severity from the taxonomy, not from the rubric", () => {
    const score = resolveRubricScore(
      rubricSaid({
        failure_modes: [
          { code: "still_vulnerable", severity: "info", detail: null },
          { code: "noisy_diff", severity: "block", detail: null },
        ],
      }),
      contract,
      measured,
    );
    expect(score.failure_modes.map((m) => [m.code, m.severity])).toEqual([
      ["still_vulnerable", "block"],
      ["noisy_diff", "warn"],
    ]);
    expect(score.passed).toBe(true);
  });

  it("does not resolve inherited object keys as taxonomy codes", () => {
    const score = resolveRubricScore(
      rubricSaid({ failure_modes: [{ code: "constructor", severity: "info", detail: null }] }),
      contract,
      measured,
    );
    expect(score.failure_modes[0]?.code).toBe("rubric.unknown_failure_mode");
  });
});

describe("resolveRubricScore for a binary task class", () => {
  it("keeps a 0 or 1 whose passed agrees", () => {
    expect(resolveRubricScore(rubricSaid({ score: 1, passed: true }), binary, measured)).toMatchObject({
      score: 1,
      passed: true,
      failure_modes: [],
    });
    expect(resolveRubricScore(rubricSaid({ score: 0, passed: false }), binary, measured)).toMatchObject({
      score: 0,
      passed: false,
      failure_modes: [],
    });
  });

  it.each([
    [{ score: 0.9, passed: true }, "score must be 0 or 1, got 0.9"],
    [{ score: 1, passed: false }, "passed must be true exactly when score is 1"],
    [{ score: 0, passed: true }, "passed must be true exactly when score is 1"],
  ])("turns %o into rubric.malformed_output", (said, detail) => {
    const score = resolveRubricScore(rubricSaid(said), binary, measured);
    expect(score).toMatchObject({ score: 0, passed: false });
    expect(score.failure_modes).toHaveLength(1);
    expect(score.failure_modes[0]).toMatchObject({ code: "rubric.malformed_output", severity: "block" });
    expect(score.failure_modes[0]?.detail).toContain(detail);
  });

  it("scores 0 a case the harness fails, so the pass rate is the mean score", () => {
    const score = resolveRubricScore(
      rubricSaid({ score: 1, passed: true, breakdown: { smuggled: 1 } }),
      binary,
      measured,
    );
    expect(score).toMatchObject({ score: 0, passed: false });
    expect(score.failure_modes[0]?.code).toBe("rubric.unknown_breakdown_key");
  });
});

describe("harnessFailureScore", () => {
  it("is a zero, failed score with one block failure and a clipped detail", () => {
    const score = harnessFailureScore("sut.exception", `TypeError: ${"x".repeat(5000)}`, measured);
    expect(score).toMatchObject({ passed: false, score: 0, breakdown: {}, cost_usd: 0.02, wall_clock_ms: 1234 });
    expect(score.failure_modes[0]?.code).toBe("sut.exception");
    expect(score.failure_modes[0]?.detail?.length).toBe(4000);
  });
});
