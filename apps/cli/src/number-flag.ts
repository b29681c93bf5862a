// Numeric flags, checked in one place by typanion rules. The text is read with Number() first:
// typanion's own string coercion refuses spellings users type ("0.10", "1e3", "+5").
import { EvalError } from "@eval/errors";
import * as t from "typanion";

/** A numeric flag's rules and how its error names them. */
export interface NumberFlagRule {
  readonly check: t.StrictValidator<unknown, number>;
  /** Completes "`--flag` must be ...", e.g. "a number >= 0". */
  readonly expected: string;
  readonly hint?: string;
}

/** A number with further typanion rules (`t.isInteger()`, `t.isAtLeast(0)`, `t.isInInclusiveRange(-1, 1)`, ...). */
export function numberRule(
  expected: string,
  rules: ReadonlyArray<t.LooseValidator<number, number>>,
  hint?: string,
): NumberFlagRule {
  return { check: t.cascade(t.isNumber(), [...rules]), expected, ...(hint === undefined ? {} : { hint }) };
}

/**
 * The value of a numeric flag: `fallback` when absent, else the number it spells if the rule accepts
 * it; otherwise one EVAL_USAGE line naming the flag, what it must be and what was given.
 */
export function numberFlag(name: string, raw: string | undefined, fallback: number, rule: NumberFlagRule): number {
  if (raw === undefined) return fallback;
  const value = raw.trim() === "" ? Number.NaN : Number(raw);
  if (Number.isFinite(value) && rule.check(value)) return value;
  throw new EvalError(
    "EVAL_USAGE",
    `${name} must be ${rule.expected}, got "${raw}"`,
    rule.hint === undefined ? undefined : { hint: rule.hint },
  );
}

/** A number strictly above `n` (typanion has `isAtLeast`, `isPositive` for >= only). */
export function isAbove(n: number): t.LooseValidator<number, number> {
  // The flag's error names the rule; this validator's own message is never shown.
  return t.makeValidator<number, number>({ test: (value: number) => value > n });
}
