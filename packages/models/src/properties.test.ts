import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { BenchRunReportSchema, BenchScoreSchema, FailureModeSchema, parseWire } from "./index.ts";
import { validReport } from "./fixtures.test-helpers.ts";

const failureMode = fc.record({
  code: fc.stringMatching(/^[a-z][a-z0-9_]{0,12}(\.[a-z0-9_]{1,8})?$/),
  severity: fc.constantFrom("block", "warn", "info"),
  detail: fc.option(fc.string({ maxLength: 50 }), { nil: null }),
});

const score = fc.record({
  passed: fc.boolean(),
  score: fc.double({ min: 0, max: 1, noNaN: true }),
  breakdown: fc.dictionary(fc.stringMatching(/^[a-z_]{1,20}$/), fc.double({ min: -1e6, max: 1e6, noNaN: true })),
  failure_modes: fc.array(failureMode, { maxLength: 4 }),
  cost_usd: fc.double({ min: 0, max: 1e4, noNaN: true }),
  wall_clock_ms: fc.nat(),
});

const knownKeys = new Set([
  ...Object.keys(validReport),
  "passed",
  "score",
  "breakdown",
  "failure_modes",
  "cost_usd",
  "wall_clock_ms",
  "code",
  "severity",
  "detail",
  "__proto__",
]);
const extraKey = fc.string({ minLength: 1, maxLength: 20 }).filter((key) => !knownKeys.has(key));

describe("wire properties", () => {
  it("parse(JSON round-trip(parse(x))) equals parse(x) for any valid score", () => {
    fc.assert(
      fc.property(score, (value) => {
        const parsed = parseWire(BenchScoreSchema, value);
        expect(parseWire(BenchScoreSchema, JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
      }),
    );
  });

  it("normalises negative zero, which JSON cannot carry", () => {
    const parsed = parseWire(BenchScoreSchema, {
      passed: false,
      score: -0,
      breakdown: { a: -0 },
      failure_modes: [],
      cost_usd: -0,
      wall_clock_ms: 0,
    });
    expect(Object.is(parsed.score, 0) && Object.is(parsed.breakdown.a, 0) && Object.is(parsed.cost_usd, 0)).toBe(true);
  });

  it("rejects any extra key on a score, a failure mode and a report", () => {
    fc.assert(
      fc.property(score, extraKey, fc.jsonValue(), (value, key, extra) => {
        expect(BenchScoreSchema.safeParse({ ...value, [key]: extra }).success).toBe(false);
        expect(FailureModeSchema.safeParse({ code: "x", severity: "info", [key]: extra }).success).toBe(false);
        expect(BenchRunReportSchema.safeParse({ ...validReport, [key]: extra }).success).toBe(false);
      }),
    );
  });

  it("rejects any score or lower bound outside [0, 1] and any negative cost", () => {
    const outside = fc.oneof(
      fc.double({ max: -Number.MIN_VALUE, noNaN: true }),
      fc.double({ min: 1 + Number.EPSILON, noNaN: true }),
    );
    fc.assert(
      fc.property(score, outside, fc.double({ max: -Number.MIN_VALUE, noNaN: true }), (value, bad, negative) => {
        expect(BenchScoreSchema.safeParse({ ...value, score: bad }).success).toBe(false);
        expect(BenchScoreSchema.safeParse({ ...value, cost_usd: negative }).success).toBe(false);
        expect(BenchRunReportSchema.safeParse({ ...validReport, lower_bound_95: bad }).success).toBe(false);
        expect(BenchRunReportSchema.safeParse({ ...validReport, mean_score: bad }).success).toBe(false);
      }),
    );
  });
});
