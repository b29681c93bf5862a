// When the full schemas cannot be loaded (a broken install), a request or a score the generated check did not
// accept still fails with its exit code and exactly one stderr line, rather than an unhandled rejection.
import { PassThrough } from "node:stream";
import { describe, expect, it, vi } from "vitest";
import { VALID_REQUEST } from "./valid-request.test-helpers.ts";

vi.mock("@eval/models", () => {
  throw new Error("Cannot find package '@eval/models'");
});

const { RUBRIC_EXIT, runRubric } = await import("./runtime.ts");

async function run(score: () => unknown, input: string) {
  const stdin = new PassThrough();
  let out = "";
  let err = "";
  const done = runRubric(
    { score: score as never },
    {
      stdin,
      stdout: { write: (chunk: string) => (out += chunk) },
      stderr: { write: (chunk: string) => (err += chunk) },
    },
  );
  stdin.end(input);
  return { code: await done, out, err };
}

describe("runRubric without @eval/models", () => {
  const goodScore = { passed: true, score: 1, breakdown: {}, failure_modes: [], cost_usd: 0, wall_clock_ms: 0 };

  it("still scores a valid request: the generated checks need nothing else", async () => {
    expect(await run(() => goodScore, JSON.stringify(VALID_REQUEST))).toMatchObject({ code: RUBRIC_EXIT.ok, err: "" });
  });

  it("says the request is invalid and why it cannot say more, on one line", async () => {
    const result = await run(() => goodScore, JSON.stringify({ ...VALID_REQUEST, schema_version: "v0" }));
    expect(result.code).toBe(RUBRIC_EXIT.badRequest);
    expect(result.out).toBe("");
    expect(result.err).toMatch(
      /^rubric: invalid request: not valid, and @eval\/models could not be loaded to say why \(.*\)\n$/,
    );
  });

  it("says the score is invalid, on one line", async () => {
    const result = await run(() => ({ ...goodScore, score: 2 }), JSON.stringify(VALID_REQUEST));
    expect(result.code).toBe(RUBRIC_EXIT.badScore);
    expect(result.err.trimEnd().split("\n")).toHaveLength(1);
    expect(result.err).toMatch(
      /^rubric: score\(\) returned an invalid BenchScore: not valid, and @eval\/models could not be loaded/,
    );
  });
});
