// The wire checks of runtime.ts (generated from the zod schemas) against the zod schemas they stand in for: on every value
// they accept, the schema accepts and parses to the same thing (same keys in the same order, -0 as 0,
// defaults filled in); on every JSON value the schema accepts, they accept too. Values are generated
// around each field's edges (lengths, patterns, calendar dates, number limits, extra and missing keys).
import {
  BenchCaseSchema,
  BenchScoreSchema,
  FailureModeSchema,
  RUBRIC_REQUEST_SCHEMA_VERSION,
  RUBRIC_RESPONSE_SCHEMA_VERSION,
  RubricRequestSchema,
  RubricResponseSchema,
} from "@eval/models";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  checkBenchScore,
  checkRubricRequest,
  RUBRIC_REQUEST_SCHEMA_VERSION as HAND_REQUEST_VERSION,
  RUBRIC_RESPONSE_SCHEMA_VERSION as HAND_RESPONSE_VERSION,
} from "./runtime.ts";
import { VALID_REQUEST } from "./valid-request.test-helpers.ts";

const BENCH_CASE_KEYS = Object.keys(BenchCaseSchema.shape) as (keyof typeof BenchCaseSchema.shape)[];
const BENCH_SCORE_KEYS = Object.keys(BenchScoreSchema.shape);
const FAILURE_MODE_KEYS = Object.keys(FailureModeSchema.shape);

type Fields = Record<string, unknown>;

/** Deep equality with Object.is on every leaf: tells -0 from 0, which JSON.stringify hides. */
function sameLeaves(a: unknown, b: unknown): boolean {
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return Object.is(a, b);
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length &&
    keys.every((key) => Object.hasOwn(b, key) && sameLeaves((a as Fields)[key], (b as Fields)[key]))
  );
}

function deeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== "object") return true;
  return Object.isFrozen(value) && Object.values(value).every(deeplyFrozen);
}

/** Asserts the hand check agrees with the schema on `value`; `json` says the value is plain JSON. */
function agree(
  schema: typeof RubricRequestSchema | typeof BenchScoreSchema,
  hand: unknown,
  value: unknown,
  json: boolean,
): void {
  const full = schema.safeParse(value);
  if (hand !== undefined) {
    // Sound: never looser than the schema, and the same parse.
    expect(full.success).toBe(true);
    expect(JSON.stringify(hand)).toBe(JSON.stringify(full.data));
    expect(sameLeaves(hand, full.data)).toBe(true);
  } else if (json) {
    // Complete on JSON: nothing a harness could send (or a rubric return as plain data) is left to zod.
    expect(full.success).toBe(false);
  }
}

/** A field's value: mostly kept (so that many generated documents are valid), else dropped or replaced by one of `pool`. */
function mutated(
  valid: unknown,
  pool: readonly unknown[],
  keep = 12,
): fc.Arbitrary<{ readonly drop: boolean; readonly value: unknown }> {
  return fc.oneof(
    { weight: keep, arbitrary: fc.constant({ drop: false, value: valid }) },
    { weight: 1, arbitrary: fc.constant({ drop: true, value: undefined }) },
    { weight: 2, arbitrary: fc.constantFrom(...pool).map((value) => ({ drop: false, value })) },
  );
}

function objectOf(
  fields: Record<string, fc.Arbitrary<{ readonly drop: boolean; readonly value: unknown }>>,
  extra: fc.Arbitrary<Fields>,
): fc.Arbitrary<Fields> {
  return fc.tuple(fc.record(fields), extra).map(([chosen, more]) => {
    const result: Fields = {};
    for (const [key, { drop, value }] of Object.entries(chosen)) if (!drop) result[key] = value;
    return { ...result, ...more };
  });
}

const noExtra = fc.constant({});
const anExtraKey = fc.oneof(
  { weight: 20, arbitrary: noExtra },
  { weight: 1, arbitrary: fc.constantFrom({ llm_confidence: 1 }, { extra: null }, { Case_ID: "x" }) },
);

const STRINGS = [
  "",
  "x",
  "a",
  "A",
  "-a",
  "a-",
  "a--b",
  "a.b",
  "a_b",
  "9",
  "0a",
  "a b",
  "é",
  "/tmp/x",
  "a".repeat(64),
  "a".repeat(65),
  "a".repeat(128),
  "a".repeat(129),
];
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  1.5,
  299.5,
  300,
  300.5,
  2 ** 53 - 1,
  2 ** 53,
  1e21,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];
const OTHERS = [null, true, false, [], {}, ["a"], { a: 1 }];
const ANY = [...STRINGS, ...NUMBERS, ...OTHERS];
const HEX = [
  "0123456",
  "012345",
  "0123456789abcdef0123456789abcdef",
  "0123456789ABCDEF0123456789ABCDEF",
  "0123456789abcdef0123456789abcde",
  "0123456789abcdef0123456789abcdef0",
  "g123456789abcdef0123456789abcdef",
  "a".repeat(64),
  "a".repeat(65),
];
const DIGESTS = [
  `blake3:${"a".repeat(64)}`,
  `blake3:${"A".repeat(64)}`,
  `blake3:${"a".repeat(63)}`,
  `sha256:${"a".repeat(64)}`,
  `blake3:${"a".repeat(64)}\n`,
];
const TIMESTAMPS = [
  "2026-11-01T00:00:00Z",
  "2026-11-01T00:00:00.5Z",
  "2026-11-01T00:00:00.123456789+05:30",
  "2026-11-01T23:59:59-23:59",
  "2026-11-01T24:00:00Z",
  "2026-11-01T00:60:00Z",
  "2026-11-01T00:00:60Z",
  "2026-11-01T00:00Z",
  "2026-11-01T00:00:00",
  "2026-11-01T00:00:00z",
  "2026-11-01t00:00:00Z",
  "2026-11-01 00:00:00Z",
  "2026-11-01T00:00:00+24:00",
  "2026-11-01T00:00:00+0530",
  "2026-11-01T00:00:00.Z",
  "2024-02-29T00:00:00Z",
  "2026-02-29T00:00:00Z",
  "2000-02-29T00:00:00Z",
  "1900-02-29T00:00:00Z",
  "0000-02-29T00:00:00Z",
  "2026-02-28T00:00:00Z",
  "2026-04-30T00:00:00Z",
  "2026-04-31T00:00:00Z",
  "2026-12-31T00:00:00Z",
  "2026-00-10T00:00:00Z",
  "2026-13-10T00:00:00Z",
  "2026-01-00T00:00:00Z",
  "2026-01-32T00:00:00Z",
  "26-01-01T00:00:00Z",
  "+2026-01-01T00:00:00Z",
];

const caseValues = VALID_REQUEST.case as Fields;
const CASE_POOLS: Record<string, readonly unknown[]> = {
  case_id: ["case-01", "a.b_c-d", "a".repeat(128)],
  task_class: ["demo", "vuln-remediation", "a-b-c"],
  title: ["t", "a".repeat(200), "a".repeat(201)],
  prompt: ["p", "a".repeat(20000), "a".repeat(20001)],
  disposition: ["positive", "negative", "ambiguous", "easy"],
  difficulty: ["easy", "medium", "hard", "positive"],
  source: ["curated", "outcome-ledger-derived", "regression-converted", "held-out"],
  curation_class: ["rag-corpus-derived", "held-out", "curated"],
  commit_sha: HEX,
  added_at: TIMESTAMPS,
  last_validated_at: TIMESTAMPS,
  cassette_canary_pin: HEX,
  rubric_wall_clock_seconds: [],
  case_path: ["/c"],
  input_path: ["/i"],
  expected_path: ["/e"],
  cassette_path: ["/cassette"],
  case_digest: DIGESTS,
};
// 18 fields, each kept most of the time, so that a fair share of the generated cases are valid.
const caseField = (key: string, valid: unknown = caseValues[key]) => mutated(valid, [...CASE_POOLS[key]!, ...ANY], 40);
const benchCase = objectOf(
  Object.fromEntries(
    BENCH_CASE_KEYS.map((key) => [
      key,
      caseField(
        key,
        { title: "A title", prompt: "Do it.", commit_sha: null, rubric_wall_clock_seconds: 60 }[key as string] ??
          caseValues[key],
      ),
    ]),
  ),
  anExtraKey,
);
const harnessOutput = fc.oneof(
  {
    weight: 20,
    arbitrary: fc
      .record({ cost_usd: mutated(0.5, ANY), answer: mutated("HELLO", ANY) })
      .map(({ cost_usd, answer }) => ({
        ...(cost_usd.drop ? {} : { cost_usd: cost_usd.value }),
        ...(answer.drop ? {} : { answer: answer.value, nested: { deep: [1, { x: -0 }] } }),
      })),
  },
  { weight: 1, arbitrary: fc.constantFrom(...ANY) },
);
const context = fc.oneof(
  { weight: 20, arbitrary: objectOf({ workspace_path: mutated("/tmp/ws", [null, ...ANY]) }, anExtraKey) },
  { weight: 1, arbitrary: fc.constantFrom(...ANY) },
);
const request = fc.oneof(
  {
    weight: 20,
    arbitrary: objectOf(
      {
        schema_version: mutated(RUBRIC_REQUEST_SCHEMA_VERSION, ["evalgate.rubric_request.v2", "v0", ...ANY], 30),
        case: fc
          .oneof({ weight: 20, arbitrary: benchCase }, { weight: 1, arbitrary: fc.constantFrom(...ANY) })
          .map((value) => ({ drop: false, value })),
        harness_output: harnessOutput.map((value) => ({ drop: false, value })),
        context: context.map((value) => ({ drop: false, value })),
      },
      anExtraKey,
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...ANY) },
);

const failureMode = fc.oneof(
  {
    weight: 20,
    arbitrary: objectOf(
      {
        code: mutated("wrong_answer", [
          "a",
          "a.b",
          "a.b.c",
          "rubric.timeout",
          "A",
          "1a",
          "a..b",
          "a.",
          "_a",
          "a-b_c",
          "a".repeat(128),
          "a".repeat(129),
          ...ANY,
        ]),
        severity: mutated("block", ["warn", "info", "fatal", "BLOCK", ...ANY]),
        detail: mutated(null, ["", "why", "a".repeat(4000), "a".repeat(4001), undefined, ...ANY]),
      },
      anExtraKey,
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...ANY) },
);
const breakdown = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.dictionary(
      fc.constantFrom("exact", "a", "", "a".repeat(64), "a".repeat(65), "toString", "constructor"),
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(0, -0, 1, -1, 1e300, 0.25) },
        { weight: 1, arbitrary: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, "1", null) },
      ),
      { maxKeys: 4 },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(...ANY) },
);
const score = objectOf(
  {
    passed: mutated(true, [false, ...ANY], 20),
    score: mutated(1, [0, 0.5, -0, ...ANY], 20),
    breakdown: breakdown.map((value) => ({ drop: false, value })),
    failure_modes: fc
      .oneof(
        { weight: 20, arbitrary: fc.array(failureMode, { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.constantFrom(...ANY) },
      )
      .map((value) => ({ drop: false, value })),
    cost_usd: mutated(0, [1e6, -0, ...ANY], 20),
    wall_clock_ms: mutated(0, [1, 12345, 2 ** 53 - 1, ...ANY], 20),
  },
  anExtraKey,
);

const runs = { numRuns: 5000 };

describe("the generated wire checks", () => {
  it("know the schemas' versions", () => {
    expect(HAND_REQUEST_VERSION).toBe(RUBRIC_REQUEST_SCHEMA_VERSION);
    expect(HAND_RESPONSE_VERSION).toBe(RUBRIC_RESPONSE_SCHEMA_VERSION);
    expect(RubricResponseSchema.shape.schema_version.safeParse(HAND_RESPONSE_VERSION).success).toBe(true);
  });

  it("parse a valid request as the schema does: commit_sha defaulted, -0 cost as 0, frozen all the way down", () => {
    const input = JSON.parse(
      JSON.stringify({ ...VALID_REQUEST, harness_output: { answer: "x", cost_usd: 0, more: { list: [1, 2] } } }),
    ) as Fields;
    (input.harness_output as Fields).cost_usd = -0;
    const parsed = checkRubricRequest(input);
    expect(parsed).toBeDefined();
    expect(parsed!.case.commit_sha).toBeNull();
    expect(Object.is(parsed!.harness_output.cost_usd, 0)).toBe(true);
    expect(deeplyFrozen(parsed)).toBe(true);
    agree(RubricRequestSchema, parsed, input, true);
  });

  it("agree with the schemas on every single-field change of a valid request, score and failure mode", () => {
    const base = JSON.parse(JSON.stringify(VALID_REQUEST)) as Fields & { case: Fields };
    const validScore = {
      passed: true,
      score: 1,
      breakdown: { exact: 1 },
      failure_modes: [{ code: "wrong_answer", severity: "block", detail: null }],
      cost_usd: 0,
      wall_clock_ms: 0,
    };
    const variants: Array<[typeof RubricRequestSchema | typeof BenchScoreSchema, unknown]> = [];
    for (const key of BENCH_CASE_KEYS) {
      for (const value of [...CASE_POOLS[key]!, ...ANY])
        variants.push([RubricRequestSchema, { ...base, case: { ...base.case, [key]: value } }]);
      const { [key]: _dropped, ...rest } = base.case;
      variants.push([RubricRequestSchema, { ...base, case: rest }]);
    }
    for (const source of ["outcome-ledger-derived", "regression-converted"]) {
      for (const commitSha of [...HEX, null])
        variants.push([RubricRequestSchema, { ...base, case: { ...base.case, source, commit_sha: commitSha } }]);
      variants.push([RubricRequestSchema, { ...base, case: { ...base.case, source } }]);
    }
    for (const value of [null, "/w", ...ANY])
      variants.push([RubricRequestSchema, { ...base, context: { workspace_path: value } }]);
    for (const value of ANY)
      variants.push([RubricRequestSchema, { ...base, harness_output: { cost_usd: value, answer: "x" } }]);
    for (const key of BENCH_SCORE_KEYS)
      for (const value of ANY) variants.push([BenchScoreSchema, { ...validScore, [key]: value }]);
    for (const key of FAILURE_MODE_KEYS)
      for (const value of ANY)
        variants.push([
          BenchScoreSchema,
          { ...validScore, failure_modes: [{ ...validScore.failure_modes[0], [key]: value }] },
        ]);
    let accepted = 0;
    for (const [schema, value] of variants) {
      const check = schema === RubricRequestSchema ? checkRubricRequest : checkBenchScore;
      agree(schema, check(value), value, false);
      const json: unknown = JSON.parse(JSON.stringify(value));
      const hand = check(json);
      agree(schema, hand, json, true);
      if (hand !== undefined) accepted += 1;
    }
    expect(accepted).toBeGreaterThan(100);
  });

  it("match the schemas' string patterns and timestamps on generated strings", () => {
    const base = JSON.parse(JSON.stringify(VALID_REQUEST)) as Fields & { case: Fields };
    const validScore = {
      passed: true,
      score: 1,
      breakdown: {},
      failure_modes: [] as unknown[],
      cost_usd: 0,
      wall_clock_ms: 0,
    };
    const from = (characters: string, minLength: number, maxLength: number) =>
      fc.array(fc.constantFrom(...characters), { minLength, maxLength }).map((chars) => chars.join(""));
    const slugish = from("az09-_.AZé ", 0, 10);
    const hexish = fc.oneof(from("0123456789abcdef", 5, 66), from("0123456789abcdefABg", 5, 66));
    const pad = (value: number, width: number) => String(value).padStart(width, "0");
    const timestampish = fc
      .record({
        year: fc.oneof(
          fc.integer({ min: 0, max: 9999 }).map((year) => pad(year, 4)),
          fc.constantFrom("1800", "1900", "2000", "2024", "2100", "2200", "2400", "0000", "999", "10000", "20a6"),
        ),
        month: fc.oneof(
          fc.integer({ min: 0, max: 13 }).map((month) => pad(month, 2)),
          fc.constant("02"),
        ),
        day: fc.oneof(
          fc.integer({ min: 0, max: 32 }).map((day) => pad(day, 2)),
          fc.constantFrom("28", "29", "30", "31", "1"),
        ),
        hour: fc.integer({ min: 0, max: 25 }).map((hour) => pad(hour, 2)),
        minute: fc.integer({ min: 0, max: 61 }).map((minute) => pad(minute, 2)),
        second: fc.oneof(
          fc.integer({ min: 0, max: 61 }).map((second) => pad(second, 2)),
          fc.constantFrom("", "5"),
        ),
        fraction: fc.constantFrom("", "", ".", ".5", ".123456789", ".a", ".5.5"),
        offset: fc.constantFrom(
          "Z",
          "Z",
          "+00:00",
          "-23:59",
          "+24:00",
          "+05:60",
          "+0530",
          "+05-30",
          "+05030",
          "*05:30",
          "+05:3",
          "+5:30",
          "z",
          "",
          "ZZ",
          "+05:30Z",
        ),
        separators: fc.constantFrom("-", "-", "-", "/", "_"),
        t: fc.constantFrom("T", "T", "T", "t", " "),
      })
      .map(
        ({ year, month, day, hour, minute, second, fraction, offset, separators, t }) =>
          `${year}${separators}${month}-${day}${t}${hour}:${minute}${second === "" ? "" : `:${second}`}${fraction}${offset}`,
      );
    const cases = fc.oneof(
      fc.record({ key: fc.constantFrom("case_id", "task_class"), value: slugish }),
      fc.record({ key: fc.constantFrom("commit_sha", "cassette_canary_pin"), value: hexish }),
      fc.record({
        key: fc.constant("case_digest"),
        value: fc.oneof(
          hexish.map((hex) => `blake3:${hex}`),
          hexish.map((hex) => `blake2:${hex}`),
        ),
      }),
      fc.record({ key: fc.constantFrom("added_at", "last_validated_at"), value: timestampish }),
    );
    fc.assert(
      fc.property(cases, slugish, ({ key, value }, code) => {
        const benchCase = {
          ...base.case,
          [key]: value,
          ...(key === "commit_sha" ? { source: "regression-converted" } : {}),
        };
        const request = { ...base, case: benchCase };
        agree(RubricRequestSchema, checkRubricRequest(request), request, true);
        const score = { ...validScore, failure_modes: [{ code, severity: "info" }] };
        agree(BenchScoreSchema, checkBenchScore(score), score, true);
      }),
      { numRuns: 20_000 },
    );
  });

  it("agree with RubricRequestSchema on generated requests", () => {
    let accepted = 0;
    fc.assert(
      fc.property(request, (value) => {
        agree(RubricRequestSchema, checkRubricRequest(value), value, false);
        const json: unknown = JSON.parse(JSON.stringify(value) ?? "null");
        const hand = checkRubricRequest(json);
        agree(RubricRequestSchema, hand, json, true);
        if (hand !== undefined) accepted += 1;
      }),
      runs,
    );
    // Both sides of the line are exercised, not only rejections.
    expect(accepted).toBeGreaterThan(runs.numRuns / 10);
    expect(accepted).toBeLessThan(runs.numRuns * 0.9);
  });

  it("agree with BenchScoreSchema on generated scores", () => {
    let accepted = 0;
    fc.assert(
      fc.property(score, (value) => {
        agree(BenchScoreSchema, checkBenchScore(value), value, false);
        const json: unknown = JSON.parse(JSON.stringify(value) ?? "null");
        const hand = checkBenchScore(json);
        agree(BenchScoreSchema, hand, json, true);
        if (hand !== undefined) accepted += 1;
      }),
      runs,
    );
    expect(accepted).toBeGreaterThan(runs.numRuns / 10);
    expect(accepted).toBeLessThan(runs.numRuns * 0.9);
  });

  it("leave to the schema what is not plain data: class instances, symbol keys, __proto__ keys, holes", () => {
    const valid = { passed: true, score: 1, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 };
    class Score {
      passed = true;
      score = 1;
      breakdown = {};
      failure_modes = [];
      cost_usd = 0;
      wall_clock_ms = 0;
    }
    const leftToSchema: unknown[] = [
      new Score(),
      Object.assign(Object.create(null) as object, valid),
      { ...valid, breakdown: { [Symbol("s")]: 1 } },
      { ...valid, breakdown: JSON.parse('{"__proto__": 1}') as unknown },
      { ...valid, failure_modes: [, { code: "a", severity: "info" }] },
      { ...valid, failure_modes: [{ code: "a", severity: "info", detail: undefined }] },
    ];
    expect(checkBenchScore({ ...valid, failure_modes: [{ code: "a", severity: "info" }] })).toEqual({
      ...valid,
      failure_modes: [{ code: "a", severity: "info", detail: null }],
    });
    for (const value of leftToSchema.slice(0, 5)) expect(checkBenchScore(value)).toBeUndefined();
    // A detail given as undefined is the schema's default, like an absent one.
    expect(checkBenchScore(leftToSchema[5])).toEqual({
      ...valid,
      failure_modes: [{ code: "a", severity: "info", detail: null }],
    });
    expect(BenchScoreSchema.safeParse(new Score()).success).toBe(true);

    const request = JSON.parse(JSON.stringify(VALID_REQUEST)) as Fields;
    expect(
      checkRubricRequest({ ...request, harness_output: JSON.parse('{"__proto__": {"x": 1}}') as unknown }),
    ).toBeUndefined();
    expect(checkRubricRequest({ ...request, case: { ...(request.case as Fields), title: undefined } })).toBeUndefined();
    // A defaulted field given as undefined takes its default, as zod does.
    const defaulted = { ...request, case: { ...(request.case as Fields), commit_sha: undefined } };
    expect(checkRubricRequest(defaulted)).toEqual(RubricRequestSchema.parse(defaulted));
  });
});
