// A broken rubric is not a failing SUT: a rubric that prints garbage, exits 1, or fails on most cases gets
// the run recorded but refused as a measurement (EVAL_RUBRIC_BROKEN, exit 8 in the CLI), and nothing it
// got wrong is cached; a rubric that fails on a minority of cases (perhaps provoked by the SUT) leaves
// those cases failed, still uncached.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchScore } from "@eval/models";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { assertSomeCaseScored, moduleSut, runEval } from "./index.ts";
import { harnessFailureScore } from "./scoring.ts";

let root: string;
const CASES = { "c-1": "one", "c-2": "two", "c-3": "three", "c-4": "four" };

/** The upper-case rubric (inside runRubric), broken on the cases whose id matches `broken`: `how` is what it does there. */
function brokenRubric(broken: string, how: "garbage" | "exit1"): string {
  const fault =
    how === "garbage"
      ? `process.stdout.write("{ this is not json"); process.exit(0);`
      : `process.stderr.write("rubric: TypeError: cannot read x\\n"); process.exit(1);`;
  return UPPER_RUBRIC.replace(
    "  score(benchCase, harnessOutput, context) {\n",
    `  score(benchCase, harnessOutput, context) {\n    if (new RegExp(${JSON.stringify(broken)}).test(benchCase.case_id)) { ${fault} }\n`,
  );
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-broken-rubric-"));
}, 60_000);
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function runWith(slug: string, rubric: string) {
  const bench = await makeTaskClassBench(root, { slug, rubric, cases: CASES });
  const stateDir = join(root, `state-${slug}`);
  const options = {
    systemUnderTest: await moduleSut(`${join(root, "sut.mjs")}#upper`),
    benchRoot: bench.benchRoot,
    stateDir,
    sandbox: "none" as const,
    concurrency: 2,
  };
  return { first: await runEval(slug, options), again: () => runEval(slug, options) };
}

describe("a broken rubric", () => {
  beforeAll(async () => {
    const { writeFile } = await import("node:fs/promises");
    await writeFile(
      join(root, "sut.mjs"),
      `import { readFileSync, writeFileSync } from "node:fs";\nexport async function upper(invocation) { const p = invocation.workspacePath + "/text.txt"; writeFileSync(p, readFileSync(p, "utf8").toUpperCase()); return { cost_usd: 0 }; }\n`,
    );
  });

  it.each([
    ["garbage", "c-"],
    ["exit1", "c-"],
    ["garbage", "c-[123]"],
  ] as const)(
    "printing %s on %s: recorded, refused as a measurement naming the rubric, nothing cached",
    async (how, broken) => {
      const { first, again } = await runWith(`broken-${how}-${broken.length}`, brokenRubric(broken, how));
      expect(first.report.per_case).toHaveLength(4);
      const codes = first.report.per_case.map((entry) => entry.score.failure_modes.map((mode) => mode.code)).flat();
      expect(codes.filter((code) => code === "rubric.malformed_output").length).toBeGreaterThanOrEqual(3);
      let thrown: unknown;
      try {
        assertSomeCaseScored(first.report.run_id, first.report.per_case);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ code: "EVAL_RUBRIC_BROKEN" });
      expect((thrown as Error).message).toMatch(
        new RegExp(
          `the rubric failed on ${broken === "c-" ? 4 : 3} of the 4 units it scored \\(rubric\\.malformed_output; c-1: `,
        ),
      );
      // Nothing the rubric got wrong was cached: the rerun scores those cases again (only a judged case hits).
      const rerun = await again();
      expect(rerun.caseResults.filter((entry) => entry.cacheHit).map((entry) => entry.case_id)).toEqual(
        broken === "c-" ? [] : ["c-4"],
      );
    },
    180_000,
  );

  it("failing on a minority of cases is those cases' failure (uncached), not a broken rubric", async () => {
    const { first, again } = await runWith("minority", brokenRubric("c-1", "exit1"));
    expect(
      first.report.per_case.find((entry) => entry.case_id === "c-1")?.score.failure_modes.map((mode) => mode.code),
    ).toEqual(["rubric.malformed_output"]);
    expect(() => assertSomeCaseScored(first.report.run_id, first.report.per_case)).not.toThrow();
    const rerun = await again();
    expect(rerun.caseResults.filter((entry) => !entry.cacheHit).map((entry) => entry.case_id)).toEqual(["c-1"]);
  }, 180_000);
});

describe("the threshold, on scores", () => {
  const measured = { wallClockMs: 1, costUsd: 0 };
  const judged: BenchScore = {
    passed: true,
    score: 1,
    breakdown: {},
    failure_modes: [],
    cost_usd: 0,
    wall_clock_ms: 1,
  };
  const malformed = harnessFailureScore("rubric.malformed_output", "exited 1", measured);
  const crashed = harnessFailureScore("sut.exception", "boom", measured);
  const late = harnessFailureScore("rubric.timeout", "killed after 5 ms", measured);
  const limited = harnessFailureScore(
    "rubric.resource_limit",
    "memory limit (64 MiB) reached, enforced by cgroup",
    measured,
  );

  it("more than half of the units that reached the rubric; units that ended in the SUT do not count; trials do", () => {
    const broken = (scores: BenchScore[]) => () =>
      assertSomeCaseScored(
        "r",
        scores.map((score, i) => ({ case_id: `c-${i}`, score })),
      );
    expect(broken([malformed, judged])).not.toThrow();
    expect(broken([malformed, malformed, judged])).toThrow(/the rubric failed on 2 of the 3 units/);
    expect(broken([malformed, crashed, crashed, judged])).not.toThrow();
    expect(broken([malformed, late, crashed, judged])).toThrow(
      /the rubric failed on 2 of the 3 units it scored \(rubric\.malformed_output; c-0: exited 1\)/,
    );
    expect(() =>
      assertSomeCaseScored("r", [{ case_id: "a", score: judged, trials: [judged, malformed, malformed] }]),
    ).toThrow(/2 of the 3 units/);
  });

  it("a rubric that hits its sandbox's limits on most units is broken (before: its limits read as the cases' failures)", () => {
    const cases = [limited, limited, judged].map((score, i) => ({ case_id: `c-${i}`, score }));
    expect(() => assertSomeCaseScored("r", cases)).toThrow(
      expect.objectContaining({
        code: "EVAL_RUBRIC_BROKEN",
        message: expect.stringMatching(
          /the rubric failed on 2 of the 3 units it scored \(rubric\.resource_limit; c-0: memory limit/,
        ),
      }),
    );
    expect(() =>
      assertSomeCaseScored(
        "r",
        [limited, judged, judged].map((score, i) => ({ case_id: `c-${i}`, score })),
      ),
    ).not.toThrow();
  });

  it("a rubric timeout on every case keeps exit 8's message, with the rubric's hint instead of the SUT's", () => {
    expect(() =>
      assertSomeCaseScored("r", [
        { case_id: "a", score: late },
        { case_id: "b", score: late },
      ]),
    ).toThrow(
      expect.objectContaining({
        code: "EVAL_RUN_ALL_CASES_ERRORED",
        hint: expect.stringMatching(/its rubric failed, not the SUT/),
      }),
    );
    expect(() => assertSomeCaseScored("r", [{ case_id: "a", score: crashed }])).toThrow(
      expect.objectContaining({ hint: undefined }),
    );
  });
});
