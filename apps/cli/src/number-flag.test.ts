import { describe, expect, it } from "vitest";
import * as t from "typanion";
import { isAbove, numberFlag, numberRule } from "./number-flag.ts";

describe("numberFlag", () => {
  const days = numberRule("a number >= 0", [t.isAtLeast(0)]);

  it("gives the fallback when the flag is absent, and the number a spelling means", () => {
    expect(numberFlag("--days", undefined, 90, days)).toBe(90);
    expect(numberFlag("--days", "0", 90, days)).toBe(0);
    // Spellings typanion's own string coercion refuses are read as numbers.
    expect(numberFlag("--days", "0.10", 90, days)).toBe(0.1);
    expect(numberFlag("--days", "1e3", 90, days)).toBe(1000);
  });

  it("refuses what is not a number or breaks a rule, in one EVAL_USAGE line naming flag, rule and value", () => {
    for (const raw of ["soon", "", " ", "Infinity", "-1"]) {
      expect(() => numberFlag("--days", raw, 90, days)).toThrow(
        expect.objectContaining({ code: "EVAL_USAGE", message: `--days must be a number >= 0, got "${raw}"` }),
      );
    }
    const whole = numberRule("a whole number in [1, 4]", [t.isInteger(), t.isInInclusiveRange(1, 4)], "e.g. --n 2");
    expect(numberFlag("--n", "4", 1, whole)).toBe(4);
    expect(() => numberFlag("--n", "2.5", 1, whole)).toThrow(expect.objectContaining({ hint: "e.g. --n 2" }));
    expect(() => numberFlag("--n", "5", 1, whole)).toThrow(/--n must be a whole number in \[1, 4\], got "5"/);
  });

  it("isAbove is strict", () => {
    const seconds = numberRule("a number of seconds > 0", [isAbove(0)]);
    expect(numberFlag("--s", "0.5", 1, seconds)).toBe(0.5);
    expect(() => numberFlag("--s", "0", 1, seconds)).toThrow(/must be a number of seconds > 0, got "0"/);
  });
});
