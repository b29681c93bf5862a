// Rescoring recorded outputs: a real run of a module SUT, the rubric changed and re-signed, then the
// recorded workspaces scored by the new rubric with the SUT's file gone (it cannot be called).
import { readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyChain } from "@eval/audit-chain";
import { makeTaskClassBench, UPPER_RUBRIC } from "./bench.test-helpers.ts";
import { moduleSut, rescoreRun, runEval } from "./index.ts";

let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-rescore-"));
  bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: { "c-1": "alpha", "c-2": "beta", "c-3": "gamma" },
  });
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** The rubric after a change: a case passes only when the SUT also left a NOTES.md. */
const STRICTER_RUBRIC = UPPER_RUBRIC.replace(
  'import { readFileSync } from "node:fs";',
  'import { existsSync, readFileSync } from "node:fs";',
).replace(
  "const score = expected.length === 0 ? 1 : same / expected.length;",
  'const notes = existsSync(join(context.workspacePath, "NOTES.md"));\n    const score = notes ? (expected.length === 0 ? 1 : same / expected.length) : 0;',
);

async function recordRun(stateDir: string): Promise<{ runId: string; sutDigest: string; rubricDigest: string }> {
  const sutFile = join(root, `sut-${Math.random().toString(16).slice(2)}.mjs`);
  // Upper-cases the text; writes NOTES.md for c-1 only; c-3 (trial 1) throws.
  await writeFile(
    sutFile,
    `import { readFileSync, writeFileSync } from "node:fs";
export function upper(invocation) {
  if (invocation.benchCase.case_id === "c-3" && invocation.trial === 1) throw new Error("flaky crash");
  const path = invocation.workspacePath + "/text.txt";
  writeFileSync(path, readFileSync(path, "utf8").toUpperCase());
  if (invocation.benchCase.case_id === "c-1") writeFileSync(invocation.workspacePath + "/NOTES.md", "notes\\n");
  console.log("did " + invocation.benchCase.case_id);
  return { cost_usd: 0.25 };
}
`,
  );
  const sut = await moduleSut(`${sutFile}#upper`);
  const result = await runEval(bench.slug, {
    systemUnderTest: sut,
    benchRoot: bench.benchRoot,
    stateDir,
    concurrency: 2,
    trials: 2,
  });
  // The SUT is gone: a rescore that called it would fail every case.
  await unlink(sutFile);
  return { runId: result.report.run_id, sutDigest: sut.digest, rubricDigest: result.report.rubric_digest };
}

async function changeRubric(source: string): Promise<void> {
  const { signBench } = await import("@eval/registry");
  await writeFile(join(bench.benchPath, "rubric.ts"), source);
  await signBench({ benchPath: bench.benchPath, name: bench.slug });
}

describe("rescoreRun", () => {
  it(
    "scores a run's recorded outputs with the current rubric, without the SUT, as a new run that names the original",
    { timeout: 120_000 },
    async () => {
      const stateDir = join(root, "state");
      const original = await recordRun(stateDir);
      await changeRubric(STRICTER_RUBRIC);
      try {
        const rescored = await rescoreRun({
          runId: original.runId,
          benchRoot: bench.benchRoot,
          stateDir,
          concurrency: 2,
        });
        const report = rescored.report;
        expect(report.schema_version).toBe("evalgate.bench_run_report.v3");
        expect(report).toMatchObject({
          sut_digest: original.sutDigest,
          trials_per_case: 2,
          complete: true,
          total_cost_usd: 0,
        });
        expect(report.rubric_digest).not.toBe(original.rubricDigest);
        expect("rescore_of" in report && report.rescore_of).toEqual({
          run_id: original.runId,
          sut_digest: original.sutDigest,
          rubric_digest: original.rubricDigest,
        });
        // Under the new rubric only c-1 (which left NOTES.md) passes; c-3's crashed trial stays a SUT failure.
        const byCase = Object.fromEntries(
          report.per_case.map((entry) => [entry.case_id, "trials" in entry ? entry.trials!.map((t) => t.passed) : []]),
        );
        expect(byCase).toEqual({ "c-1": [true, true], "c-2": [false, false], "c-3": [false, false] });
        expect(report.harness_errored_case_ids).toEqual(["c-3"]);
        const crashed = JSON.parse(readFileSync(join(rescored.runDir, "cases", "c-3.trial-1.json"), "utf8")) as {
          sut_error: string;
        };
        expect(crashed.sut_error).toMatch(/the SUT failed in run .*flaky crash/);
        // The rescore's own details keep the original's output streams and the restored workspace.
        const detail = JSON.parse(readFileSync(join(rescored.runDir, "cases", "c-1.json"), "utf8")) as {
          sut_streams: { stdout: { text: string } };
          workspace: { changes: { path: string }[] };
        };
        expect(detail.sut_streams.stdout.text).toBe("did c-1\n");
        expect(detail.workspace.changes.map((change) => change.path)).toEqual(["NOTES.md", "text.txt"]);
        expect((await verifyChain({ runsDir: join(stateDir, "runs") })).ok).toBe(true);
      } finally {
        await changeRubric(UPPER_RUBRIC);
      }
    },
  );

  it(
    "refuses, before any rubric runs, a run whose workspaces were not captured; and a changed case input fails its case",
    { timeout: 120_000 },
    async () => {
      const stateDir = join(root, "state-refuse");
      const original = await recordRun(stateDir);
      const detailPath = join(stateDir, "runs", original.runId, "cases", "c-2.trial-1.json");
      const detail = JSON.parse(readFileSync(detailPath, "utf8")) as Record<string, unknown>;
      const { workspace, ...withoutCapture } = detail;
      writeFileSync(detailPath, JSON.stringify(withoutCapture));
      await expect(rescoreRun({ runId: original.runId, benchRoot: bench.benchRoot, stateDir })).rejects.toMatchObject({
        code: "EVAL_RESCORE_UNAVAILABLE",
        message: expect.stringMatching(/c-2 trial 1: no captured workspace/),
      });
      writeFileSync(detailPath, JSON.stringify({ ...detail, workspace }));
      await expect(rescoreRun({ runId: "nope", benchRoot: bench.benchRoot, stateDir })).rejects.toMatchObject({
        code: "EVAL_REPORT_NOT_FOUND",
      });
      // The case's input changed since the run: its recorded diff no longer applies to what the rubric would see.
      const input = join(bench.benchPath, "cases", "c-2", "input", "text.txt");
      await changeInput(input, "BETA-CHANGED");
      try {
        const rescored = await rescoreRun({ runId: original.runId, benchRoot: bench.benchRoot, stateDir });
        const c2 = JSON.parse(readFileSync(join(rescored.runDir, "cases", "c-2.json"), "utf8")) as {
          sut_error: string;
        };
        expect(c2.sut_error).toMatch(/input file text.txt differs from the one run .* started from/);
      } finally {
        await changeInput(input, "beta");
      }
    },
  );
});

async function changeInput(path: string, text: string): Promise<void> {
  const { signBench } = await import("@eval/registry");
  await writeFile(path, text);
  await signBench({ benchPath: bench.benchPath, name: bench.slug });
}
