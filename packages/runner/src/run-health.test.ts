import { describe, expect, it } from "vitest";
import type { BenchScore } from "@eval/models";
import { harnessFailureScore } from "./scoring.ts";
import { assertSomeCaseScored, shortReason, unscoredReason } from "./run-health.ts";

const measured = { wallClockMs: 5, costUsd: 0 };
const judged: BenchScore = {
  passed: false,
  score: 0.2,
  breakdown: {},
  failure_modes: [{ code: "wrong_text", severity: "block", detail: "differs" }],
  cost_usd: 0,
  wall_clock_ms: 1,
};
const crashed = harnessFailureScore("sut.exception", "Error: exited 3: python3: can't open file 'fix.py'", measured);
const late = harnessFailureScore("sut.timeout", "no result within 1000 ms", measured);

describe("assertSomeCaseScored", () => {
  it("accepts a run in which at least one case reached its rubric, and an empty run", () => {
    expect(() =>
      assertSomeCaseScored("r1", [
        { case_id: "a", score: crashed },
        { case_id: "b", score: judged },
      ]),
    ).not.toThrow();
    expect(() => assertSomeCaseScored("r1", [])).not.toThrow();
  });

  it("with trials, a case measured something when any of its trials was judged (per_case's score is only trial 0)", () => {
    expect(() =>
      assertSomeCaseScored("r4", [{ case_id: "a", score: crashed, trials: [crashed, judged] }]),
    ).not.toThrow();
    expect(() => assertSomeCaseScored("r5", [{ case_id: "a", score: crashed, trials: [crashed, late] }])).toThrow(
      /the only case failed in the SUT or the harness/,
    );
  });

  it("refuses a run whose every case failed before a rubric judged it, naming the most common code and one reason", () => {
    const cases = [
      { case_id: "a", score: late },
      { case_id: "b", score: crashed },
      { case_id: "c", score: crashed },
    ];
    expect(() => assertSomeCaseScored("r2", cases)).toThrow(
      expect.objectContaining({
        code: "EVAL_RUN_ALL_CASES_ERRORED",
        message:
          "run r2 measured nothing: all 3 cases failed in the SUT or the harness, not on their merits (sut.exception; b: exited 3: python3: can't open file 'fix.py')",
      }),
    );
    expect(() =>
      assertSomeCaseScored("r3", [{ case_id: "only", score: harnessFailureScore("rubric.timeout", "", measured) }]),
    ).toThrow(/the only case failed in the SUT or the harness, not on its merits \(rubric\.timeout; only: no detail\)/);
  });
});

describe("unscoredReason and shortReason", () => {
  it("finds the harness-side failure, and nothing in a judged case", () => {
    expect(unscoredReason(crashed)).toEqual({
      code: "sut.exception",
      detail: "Error: exited 3: python3: can't open file 'fix.py'",
    });
    expect(unscoredReason(judged)).toBeNull();
  });

  it("keeps the first non-empty line, drops a plain Error prefix, and clips", () => {
    expect(shortReason("\n  Error: exited 1\nTraceback ...")).toBe("exited 1");
    expect(shortReason("TypeError: x is not a function")).toBe("TypeError: x is not a function");
    expect(shortReason("a".repeat(100), 10)).toBe(`${"a".repeat(9)}…`);
    expect(shortReason(null)).toBe("");
  });
});
