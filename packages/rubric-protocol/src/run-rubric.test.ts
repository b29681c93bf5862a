import { PassThrough } from "node:stream";
import { RubricRequestSchema, RubricResponseSchema, parseWire, toJsonSchema, type BenchScoreInput } from "@eval/models";
import { describe, expect, it } from "vitest";
import type { Rubric } from "./rubric.ts";
import { RUBRIC_EXIT, rubricRequestJsonSchema, rubricResponseJsonSchema, runRubric } from "./runtime.ts";
import { VALID_REQUEST } from "./valid-request.test-helpers.ts";

const goodScore: BenchScoreInput = {
  passed: true,
  score: 1,
  breakdown: { exact: 1 },
  failure_modes: [],
  cost_usd: 0,
  wall_clock_ms: 0,
};

async function run(rubric: Rubric, stdinText: string | null) {
  const stdin = new PassThrough();
  let out = "";
  let err = "";
  const done = runRubric(rubric, {
    stdin,
    stdout: { write: (chunk: string) => (out += chunk) },
    stderr: { write: (chunk: string) => (err += chunk) },
  });
  if (stdinText !== null) stdin.end(stdinText);
  else stdin.end();
  return { code: await done, out, err };
}

describe("runRubric", () => {
  it("reads one request, passes case, output and context to score, writes one response line", async () => {
    const seen: unknown[] = [];
    const rubric: Rubric = {
      score(benchCase, harnessOutput, context) {
        seen.push(
          benchCase.case_id,
          harnessOutput.answer,
          context.workspacePath,
          Object.isFrozen(benchCase),
          benchCase.commit_sha,
        );
        return { ...goodScore, failure_modes: [{ code: "minor", severity: "info" }] };
      },
    };
    const result = await run(rubric, JSON.stringify(VALID_REQUEST));
    expect(result).toMatchObject({ code: 0, err: "" });
    expect(seen).toEqual(["case-01", "HELLO", "/tmp/ws", true, null]);
    expect(result.out.endsWith("\n")).toBe(true);
    expect(result.out.trim().split("\n")).toHaveLength(1);
    const response = parseWire(RubricResponseSchema, JSON.parse(result.out));
    expect(response.score.failure_modes).toEqual([{ code: "minor", severity: "info", detail: null }]);
  });

  it("awaits an async score", async () => {
    const result = await run({ score: async () => goodScore }, JSON.stringify(VALID_REQUEST));
    expect(result.code).toBe(0);
  });

  const failing: Rubric = { score: () => goodScore };
  it.each([
    ["empty stdin", null, RUBRIC_EXIT.badRequest, /empty stdin/],
    ["not JSON", "{nope", RUBRIC_EXIT.badRequest, /stdin is not JSON/],
    [
      "a wrong schema_version",
      JSON.stringify({ ...VALID_REQUEST, schema_version: "v0" }),
      RUBRIC_EXIT.badRequest,
      /invalid request: schema_version/,
    ],
    [
      "an unknown field",
      JSON.stringify({ ...VALID_REQUEST, llm_confidence: 1 }),
      RUBRIC_EXIT.badRequest,
      /llm_confidence/,
    ],
    [
      "a case without case_digest",
      JSON.stringify({ ...VALID_REQUEST, case: { ...VALID_REQUEST.case, case_digest: undefined } }),
      RUBRIC_EXIT.badRequest,
      /case\.case_digest/,
    ],
  ])("bad input (%s): exit %i, exactly one stderr line, nothing on stdout", async (_label, input, code, message) => {
    const result = await run(failing, input);
    expect(result.code).toBe(code);
    expect(result.out).toBe("");
    expect(result.err.split("\n")).toEqual([expect.stringMatching(message), ""]);
    expect(result.err).toMatch(/^rubric: /);
  });

  it.each<[string, () => unknown, number, RegExp]>([
    ["score out of range", () => ({ ...goodScore, score: 1.5 }), RUBRIC_EXIT.badScore, /invalid BenchScore: score: /],
    ["a smuggled field", () => ({ ...goodScore, llm_confidence: 0.9 }), RUBRIC_EXIT.badScore, /llm_confidence/],
    [
      "a bad severity",
      () => ({ ...goodScore, failure_modes: [{ code: "x", severity: "fatal" }] }),
      RUBRIC_EXIT.badScore,
      /failure_modes\.0\.severity/,
    ],
    ["nothing", () => undefined, RUBRIC_EXIT.badScore, /invalid BenchScore/],
    [
      "a throw",
      () => {
        throw new TypeError("boom\nsecond line");
      },
      RUBRIC_EXIT.rubricFailed,
      /score\(\) threw TypeError: boom$/,
    ],
    [
      "a thrown string",
      () => {
        throw "plain";
      },
      RUBRIC_EXIT.rubricFailed,
      /score\(\) threw plain/,
    ],
  ])("rubric fault (%s): exit %i with one stderr line", async (_label, score, code, message) => {
    const result = await run({ score: score as Rubric["score"] }, JSON.stringify(VALID_REQUEST));
    expect(result.code).toBe(code);
    expect(result.out).toBe("");
    expect(result.err.trimEnd().split("\n")).toHaveLength(1);
    expect(result.err.trimEnd()).toMatch(message);
  });

  it("writes the score exactly as the full schema parses it: -0 as 0, failure-mode detail defaulted, schema key order", async () => {
    const produced = {
      wall_clock_ms: 0,
      cost_usd: -0,
      failure_modes: [{ severity: "warn" as const, code: "scope" }],
      breakdown: { exact: -0 },
      score: 0.5,
      passed: false,
    };
    const result = await run({ score: () => produced }, JSON.stringify(VALID_REQUEST));
    expect(result.code).toBe(0);
    expect(result.out).toBe(
      `${JSON.stringify(parseWire(RubricResponseSchema, { schema_version: "evalgate.rubric_response.v1", score: produced }))}\n`,
    );
  });

  it("asks the full schema about what the hand check leaves to it, and accepts what it accepts", async () => {
    class Score {
      passed = true;
      score = 1;
      breakdown = { exact: 1 };
      failure_modes = [];
      cost_usd = 0;
      wall_clock_ms = 0;
    }
    const fromClass = await run({ score: () => new Score() }, JSON.stringify(VALID_REQUEST));
    expect(fromClass).toMatchObject({ code: 0, err: "" });
    expect(JSON.parse(fromClass.out)).toEqual({
      schema_version: "evalgate.rubric_response.v1",
      score: { ...goodScore, breakdown: { exact: 1 } },
    });
    // A "__proto__" key (JSON can carry one) is left to zod, which accepts a loose harness output.
    const seen: unknown[] = [];
    const protoKey = await run(
      { score: (benchCase) => (seen.push(benchCase.commit_sha), goodScore) },
      JSON.stringify(VALID_REQUEST).replace('"harness_output":{', '"harness_output":{"__proto__":{"x":1},'),
    );
    expect(protoKey).toMatchObject({ code: 0, err: "" });
    expect(seen).toEqual([null]);
  });

  it("refuses an oversized request without buffering it all", async () => {
    const stdin = new PassThrough();
    let err = "";
    const done = runRubric(failing, {
      stdin,
      stdout: { write: () => true },
      stderr: { write: (chunk: string) => (err += chunk) },
    });
    const chunk = Buffer.alloc(8 * 1024 * 1024, 0x20);
    for (let index = 0; index < 9; index += 1) stdin.write(chunk);
    stdin.end();
    expect(await done).toBe(RUBRIC_EXIT.badRequest);
    expect(err).toMatch(/larger than/);
  });

  it("accepts string, Buffer and Uint8Array chunks from any async iterable", async () => {
    const text = JSON.stringify(VALID_REQUEST);
    const third = Math.floor(text.length / 3);
    async function* chunks() {
      yield text.slice(0, third);
      yield Buffer.from(text.slice(third, 2 * third), "utf8");
      yield new TextEncoder().encode(text.slice(2 * third));
    }
    let out = "";
    const code = await runRubric(failing, {
      stdin: chunks(),
      stdout: { write: (chunk: string) => (out += chunk) },
      stderr: { write: () => true },
    });
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ schema_version: "evalgate.rubric_response.v1" });
  });
});

describe("runRubric as the process entry (no io given)", () => {
  it("uses the process's streams and sets process.exitCode", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const written: string[] = [];
    stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
    const saved = {
      stdin: Object.getOwnPropertyDescriptor(process, "stdin")!,
      stdout: Object.getOwnPropertyDescriptor(process, "stdout")!,
      exitCode: process.exitCode,
    };
    Object.defineProperty(process, "stdin", { value: stdin, configurable: true });
    Object.defineProperty(process, "stdout", { value: stdout, configurable: true });
    try {
      const done = runRubric({ score: () => goodScore });
      stdin.end(JSON.stringify(VALID_REQUEST));
      expect(await done).toBe(0);
      expect(process.exitCode).toBe(0);
    } finally {
      Object.defineProperty(process, "stdin", saved.stdin);
      Object.defineProperty(process, "stdout", saved.stdout);
      process.exitCode = saved.exitCode;
    }
    expect(JSON.parse(written.join(""))).toMatchObject({ schema_version: "evalgate.rubric_response.v1" });
  });
});

describe("JSON Schemas for rubrics in other languages", () => {
  it("describe the request and the response, with stable ids", () => {
    const request = rubricRequestJsonSchema();
    const response = rubricResponseJsonSchema();
    expect(request.$id).toBe("urn:evalgate:schema:rubric-request");
    expect(response.$id).toBe("urn:evalgate:schema:rubric-response");
    expect(request).toMatchObject({
      type: "object",
      additionalProperties: false,
      required: expect.arrayContaining(["schema_version", "case", "harness_output", "context"]),
    });
    expect(JSON.stringify(response)).toContain("evalgate.rubric_response.v1");
  });

  it("are the ones the zod schemas generate (read from @eval/models' shipped files, a fresh copy per call)", () => {
    expect(rubricRequestJsonSchema()).toEqual(toJsonSchema(RubricRequestSchema, "urn:evalgate:schema:rubric-request"));
    expect(rubricResponseJsonSchema()).toEqual(
      toJsonSchema(RubricResponseSchema, "urn:evalgate:schema:rubric-response"),
    );
    expect(rubricRequestJsonSchema()).not.toBe(rubricRequestJsonSchema());
  });
});
