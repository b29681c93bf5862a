import { describe, expect, it } from "vitest";
import { passAtK, passHatK, reliability } from "./reliability.ts";

/** All subsets of size k of n trials, of which the first `passes` pass: the fraction with any / all passing. */
function bruteForce(n: number, passes: number, k: number): { any: number; all: number } {
  let total = 0;
  let any = 0;
  let all = 0;
  for (let mask = 0; mask < 1 << n; mask += 1) {
    const members = [...Array(n).keys()].filter((i) => (mask >> i) & 1);
    if (members.length !== k) continue;
    total += 1;
    const passing = members.filter((i) => i < passes).length;
    if (passing > 0) any += 1;
    if (passing === k) all += 1;
  }
  return { any: any / total, all: all / total };
}

describe("passAtK and passHatK", () => {
  for (const n of [1, 3, 5, 8]) {
    for (let passes = 0; passes <= n; passes += 1) {
      for (let k = 1; k <= n; k += 1) {
        it(`match subset enumeration at n = ${n}, passes = ${passes}, k = ${k}`, () => {
          const expected = bruteForce(n, passes, k);
          expect(passAtK(n, passes, k)).toBeCloseTo(expected.any, 12);
          expect(passHatK(n, passes, k)).toBeCloseTo(expected.all, 12);
        });
      }
    }
  }

  it("refuse impossible counts", () => {
    expect(() => passAtK(5, 6, 2)).toThrow(RangeError);
    expect(() => passHatK(5, 2, 0)).toThrow(RangeError);
    expect(() => passHatK(5, 2, 6)).toThrow(RangeError);
  });
});

describe("reliability", () => {
  it("averages per-case estimates over cases and lists the flaky ones", () => {
    const r = reliability([
      { case_id: "b", passed: [true, false, true, true] },
      { case_id: "a", passed: [true, true, true, true] },
      { case_id: "c", passed: [false, false, false, false] },
    ]);
    expect(r.trials).toBe(4);
    expect(r.caseCount).toBe(3);
    expect(r.passAt1).toBeCloseTo((0.75 + 1 + 0) / 3, 12);
    expect(r.passAtK).toBeCloseTo(2 / 3, 12);
    expect(r.passHatK).toBeCloseTo(1 / 3, 12);
    expect(r.flakyCaseIds).toEqual(["b"]);
  });

  it("with one trial, pass@1 = pass@k = pass^k and nothing is flaky", () => {
    const r = reliability([
      { case_id: "a", passed: [true] },
      { case_id: "b", passed: [false] },
    ]);
    expect([r.passAt1, r.passAtK, r.passHatK]).toEqual([0.5, 0.5, 0.5]);
    expect(r.flakyCaseIds).toEqual([]);
  });

  it("is all zeros for no cases and refuses uneven trial counts", () => {
    expect(reliability([]).caseCount).toBe(0);
    expect(() =>
      reliability([
        { case_id: "a", passed: [true] },
        { case_id: "b", passed: [true, true] },
      ]),
    ).toThrow(RangeError);
  });
});
