import { existsSync, readFileSync, statSync, utimesSync } from "node:fs";
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvalError } from "@eval/errors";
import { sandboxSupport } from "@eval/sandbox";
import { CaseDetailSchema, ChainRecordSchema, parseWire } from "@eval/models";
import type { SystemUnderTest } from "@eval/models";
import { loadCases, loadTaskClass, signBench } from "@eval/registry";
import { isCachedDetail } from "./case-detail.ts";
import {
  ADVERSARIAL_RUBRIC,
  HALF_UPPER_SUT,
  makeTaskClassBench,
  UPPER_RUBRIC,
  writeCase,
} from "./bench.test-helpers.ts";
import { moduleSut, runEval } from "./index.ts";
import type { RunEvalOptions } from "./index.ts";

let root: string;
let bench: { benchRoot: string; benchPath: string; slug: string };
let sutFile: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "evalgate-run-"));
  bench = await makeTaskClassBench(root, {
    rubric: UPPER_RUBRIC,
    cases: { "c-1": "alpha beta", "c-2": "gamma", "c-3": "delta epsilon zeta", "c-4": "eta" },
  });
  sutFile = join(root, "sut.mjs");
  await writeFile(sutFile, HALF_UPPER_SUT);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const options = async (
  stateDir: string,
  exportName = "halfUpper",
  extra: Partial<Omit<RunEvalOptions, "systemUnderTest">> = {},
): Promise<RunEvalOptions & { systemUnderTest: SystemUnderTest }> => ({
  systemUnderTest: await moduleSut(`${sutFile}#${exportName}`),
  benchRoot: bench.benchRoot,
  stateDir,
  concurrency: 2,
  ...extra,
});

const counting = (sut: SystemUnderTest): SystemUnderTest & { calls: number } => {
  const wrapped = {
    label: sut.label,
    digest: sut.digest,
    calls: 0,
    run: (invocation: Parameters<SystemUnderTest["run"]>[0]) => {
      wrapped.calls += 1;
      return sut.run(invocation);
    },
  };
  return wrapped;
};

describe("runEval end to end (real registry, rubric subprocesses, cache and chain)", () => {
  it("scores every case, writes details, appends one chained record; a rerun hits every case with identical statistics", async () => {
    const stateDir = join(root, "state-happy");
    const progress: number[] = [];
    const first = await runEval(bench.slug, { ...(await options(stateDir)), onProgress: (p) => progress.push(p.done) });
    const { report } = first;
    expect(report.complete).toBe(true);
    // The run hands back the task class it loaded (its digest and minimums), so no caller loads it again.
    expect(first.taskClass).toMatchObject({ name: bench.slug, rubricDigest: report.rubric_digest });
    expect(report.case_count).toBe(4);
    expect(report.per_case.map((c) => c.case_id)).toEqual(["c-1", "c-2", "c-3", "c-4"]);
    expect(
      report.per_case.every((c) => c.score.score > 0 && c.score.score < 1),
      JSON.stringify(report.per_case),
    ).toBe(true);
    // A graded task class: the betting bound on the mean score, BCa and Wilson only as information.
    expect(report).toMatchObject({ score_kind: "graded", lower_bound_method: "betting", bound_quantity: "mean_score" });
    expect(report.informational.bootstrap_resamples).toBe(10_000);
    expect(report.lower_bound_95).toBeLessThanOrEqual(report.mean_score);
    expect(report.selection).toMatchObject({
      scope: "full",
      filter: null,
      task_class_case_count: 4,
      selected_case_count: 4,
    });
    expect(report.total_cost_usd).toBeCloseTo(0.04, 10);
    expect(report.block_severity_failure_modes).toEqual(["wrong_text"]);
    expect(report.chain_head).toMatch(/^sha256:/);
    // Rubrics run in the sandbox by default; the SUT here is a module (trusted, in-process).
    expect(report.isolation_class).toBe(
      sandboxSupport().available ? "bwrap-permission" : "subprocess-permission-netns",
    );
    expect(report.sut_isolation).toBe("in-process");
    expect(report.incomplete_reason).toBeNull();
    // Progress starts before the first case finishes, and ends at the last.
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(4);
    const record = parseWire(ChainRecordSchema, JSON.parse(await readFile(first.recordPath, "utf8")));
    expect(record.chain_hash).toBe(report.chain_head);
    const detail = parseWire(CaseDetailSchema, JSON.parse(await readFile(first.caseResults[0]!.detailPath!, "utf8")));
    expect(detail.sut_output?.tag).toBe(`bench:${report.started_at}:${bench.slug}:c-1`);
    expect(detail.sut_output?.seed).toMatch(/^[0-9a-f]{64}$/);
    expect(detail.rubric?.exit_code).toBe(0);
    // Rubric start-up uses a compile cache kept per rubric digest.
    expect(await readdir(join(stateDir, "cache", "node-compile", report.rubric_digest.slice(7)))).not.toEqual([]);

    const sut = counting((await options(stateDir)).systemUnderTest);
    const second = await runEval(bench.slug, { ...(await options(stateDir)), systemUnderTest: sut });
    expect(sut.calls).toBe(0);
    expect(second.caseResults.every((r) => r.cacheHit && r.detailPath !== null)).toBe(true);
    // A cache hit's detail is the executing run's, linked into this run: it reads as reused.
    const hitDetail = parseWire(
      CaseDetailSchema,
      JSON.parse(await readFile(second.caseResults[0]!.detailPath!, "utf8")),
    );
    expect(second.caseResults[0]!.detailPath).toBe(join(stateDir, "runs", second.report.run_id, "cases", "c-1.json"));
    expect(hitDetail.run_id).toBe(report.run_id);
    expect(isCachedDetail(hitDetail, second.report.run_id)).toBe(true);
    expect(hitDetail.score).toEqual(detail.score);
    expect(hitDetail.invocation_tag).toBe(detail.invocation_tag);
    expect(second.report.total_cost_usd).toBe(0);
    for (const field of [
      "mean_score",
      "score_stddev",
      "lower_bound_95",
      "informational",
      "passed_count",
      "rubric_digest",
      "sut_digest",
      "selection",
    ] as const) {
      expect(second.report[field]).toEqual(report[field]);
    }
    expect(second.report.prev_hash).toBe(report.chain_head);
  });

  it("editing one case misses only that case; editing the rubric misses every case", async () => {
    const root2 = await mkdtemp(join(tmpdir(), "evalgate-run-edit-"));
    try {
      const own = await makeTaskClassBench(root2, { rubric: UPPER_RUBRIC, cases: { a: "one", b: "two", c: "three" } });
      const stateDir = join(root2, "state");
      const run = async () =>
        runEval(own.slug, {
          systemUnderTest: await moduleSut(`${sutFile}#halfUpper`),
          benchRoot: own.benchRoot,
          stateDir,
        });
      await run();
      await writeCase(own.benchPath, own.slug, "b", "two, edited");
      await signBench({ benchPath: own.benchPath, name: own.slug });
      const afterCaseEdit = await run();
      expect(afterCaseEdit.caseResults.map((r) => [r.case_id, r.cacheHit])).toEqual([
        ["a", true],
        ["b", false],
        ["c", true],
      ]);
      await appendFile(join(own.benchPath, "rubric.ts"), "\n// a whitespace-only edit still changes the rubric\n");
      const afterRubricEdit = await run();
      expect(afterRubricEdit.caseResults.every((r) => !r.cacheHit)).toBe(true);
      const noCache = await runEval(own.slug, {
        systemUnderTest: await moduleSut(`${sutFile}#halfUpper`),
        benchRoot: own.benchRoot,
        stateDir,
        noCache: true,
        caseFilter: "a",
      });
      expect(noCache.caseResults.map((r) => [r.case_id, r.cacheHit])).toEqual([["a", false]]);
      expect(noCache.report.case_count).toBe(1);
    } finally {
      await rm(root2, { recursive: true, force: true });
    }
  });

  it("editing a case's prompt alone (case.toml) gives it a new case digest and misses its cache", async () => {
    const root2 = await mkdtemp(join(tmpdir(), "evalgate-run-prompt-"));
    try {
      const own = await makeTaskClassBench(root2, { rubric: UPPER_RUBRIC, cases: { a: "one", b: "two" } });
      const stateDir = join(root2, "state");
      const run = async () =>
        runEval(own.slug, {
          systemUnderTest: await moduleSut(`${sutFile}#halfUpper`),
          benchRoot: own.benchRoot,
          stateDir,
        });
      const first = await run();
      const digestOf = (result: typeof first, id: string) =>
        result.report.per_case.find((c) => c.case_id === id)?.case_digest;
      await appendFile(join(own.benchPath, "cases", "b", "case.toml"), 'prompt = "Answer in lower case."\n');
      // Unsigned, the edited case is refused like any other changed file.
      await expect(run()).rejects.toMatchObject({ code: "EVAL_CASE_DIGEST_MISMATCH" });
      const signed = await signBench({ benchPath: own.benchPath, name: own.slug });
      expect(signed.changed).toEqual([{ case_id: "b", files: ["case.toml (changed)"] }]);
      const second = await run();
      expect(second.caseResults.map((r) => [r.case_id, r.cacheHit])).toEqual([
        ["a", true],
        ["b", false],
      ]);
      expect(digestOf(second, "a")).toBe(digestOf(first, "a"));
      expect(digestOf(second, "b")).not.toBe(digestOf(first, "b"));
    } finally {
      await rm(root2, { recursive: true, force: true });
    }
  }, 120_000);

  it("a SUT chooser is called once with the loaded task class and the selected cases; its error refuses the run before anything is written", async () => {
    const stateDir = join(root, "state-chooser");
    const seen: string[][] = [];
    const chosen = await runEval(bench.slug, {
      ...(await options(stateDir)),
      caseFilter: "c-[12]",
      systemUnderTest: async ({ taskClass, cases }) => {
        seen.push([taskClass.name, ...cases.map((c) => c.case_id)]);
        return moduleSut(`${sutFile}#halfUpper`);
      },
    });
    expect(seen).toEqual([[bench.slug, "c-1", "c-2"]]);
    expect(chosen.report.per_case.map((c) => c.case_id)).toEqual(["c-1", "c-2"]);
    const refusedDir = join(root, "state-chooser-refused");
    const refusal = new EvalError("EVAL_SUT_INVALID", "no SUT for these cases");
    await expect(
      runEval(bench.slug, { ...(await options(refusedDir)), systemUnderTest: async () => Promise.reject(refusal) }),
    ).rejects.toBe(refusal);
    expect(existsSync(join(refusedDir, "runs"))).toBe(false);
  });

  it("records sut.exception and sut.timeout as block failures and completes the run", async () => {
    const boom = await runEval(bench.slug, {
      ...(await options(join(root, "state-boom"), "boom")),
      caseFilter: (c) => c.case_id === "c-1",
    });
    expect(boom.report.per_case[0]?.score.failure_modes).toEqual([
      { code: "sut.exception", severity: "block", detail: "RangeError: the SUT fell over" },
    ]);
    expect(boom.report.complete).toBe(true);
    const hang = await runEval(bench.slug, {
      ...(await options(join(root, "state-hang"), "hang")),
      caseFilter: "c-[12]",
      timeoutPerCaseSeconds: 0.3,
    });
    expect(hang.report.per_case.map((c) => c.score.failure_modes[0]?.code)).toEqual(["sut.timeout", "sut.timeout"]);
    expect(hang.report.lower_bound_method).toBe("betting");
    expect(hang.report.lower_bound_95).toBe(0);
  });

  it("records a filtered run as a subset and says so; selecting no case throws before anything runs or is written", async () => {
    const warnings: string[] = [];
    const stateDir = join(root, "state-subset");
    const subset = await runEval(bench.slug, {
      ...(await options(stateDir)),
      caseFilter: "c-[12]",
      onWarning: (w) => warnings.push(w.code),
    });
    expect(subset.report.selection).toMatchObject({
      scope: "subset",
      filter: "c-[12]",
      task_class_case_count: 4,
      selected_case_count: 2,
    });
    expect(warnings).toContain("run.subset");
    const predicate = await runEval(bench.slug, { ...(await options(stateDir)), caseFilter: () => true });
    expect(predicate.report.selection).toMatchObject({ scope: "full", filter: "(predicate)" });
    const before = await readdir(join(stateDir, "runs"));
    const sut = counting((await options(stateDir)).systemUnderTest);
    await expect(
      runEval(bench.slug, { ...(await options(stateDir)), systemUnderTest: sut, caseFilter: "nomatch*" }),
    ).rejects.toMatchObject({
      code: "EVAL_NO_CASES_SELECTED",
      message: expect.stringContaining('--cases "nomatch*" matches none of the 4 cases'),
    });
    expect(sut.calls).toBe(0);
    expect(await readdir(join(stateDir, "runs"))).toEqual(before);
  });

  it("an invalid SUT output (negative cost) is a sut.exception", async () => {
    const liar: SystemUnderTest = {
      label: "liar",
      digest: `blake3:${"1".repeat(64)}`,
      run: async () => ({ cost_usd: -5 }),
    };
    const result = await runEval(bench.slug, {
      ...(await options(join(root, "state-liar"))),
      systemUnderTest: liar,
      caseFilter: "c-1",
    });
    expect(result.report.per_case[0]?.score.failure_modes[0]?.code).toBe("sut.exception");
  });

  it("a SUT may end a case with a declared failure mode (agent.budget_exceeded, replay.diverged) and the spend it metered; any other is sut.exception", async () => {
    const declare = (failure_mode: string, cost_usd: unknown): SystemUnderTest => ({
      label: "declaring",
      digest: `blake3:${"2".repeat(64)}`,
      run: async () =>
        Promise.reject(
          Object.assign(new Error("the bridge refused request 2"), {
            name: "AgentBudgetExceeded",
            failure_mode,
            cost_usd,
          }),
        ),
    });
    const spent = await runEval(bench.slug, {
      ...(await options(join(root, "state-budget"))),
      systemUnderTest: declare("agent.budget_exceeded", 0.25),
      caseFilter: "c-1",
    });
    expect(spent.report.per_case[0]?.score.failure_modes).toEqual([
      { code: "agent.budget_exceeded", severity: "block", detail: "AgentBudgetExceeded: the bridge refused request 2" },
    ]);
    expect(spent.report.per_case[0]?.score.cost_usd).toBe(0.25);
    const diverged = await runEval(bench.slug, {
      ...(await options(join(root, "state-diverged"))),
      systemUnderTest: declare("replay.diverged", "x"),
      caseFilter: "c-1",
    });
    expect(diverged.report.per_case[0]?.score).toMatchObject({
      failure_modes: [{ code: "replay.diverged" }],
      cost_usd: 0,
    });
    const forged = await runEval(bench.slug, {
      ...(await options(join(root, "state-forged"))),
      systemUnderTest: declare("rubric.timeout", 1),
      caseFilter: "c-1",
    });
    expect(forged.report.per_case[0]?.score).toMatchObject({ failure_modes: [{ code: "sut.exception" }], cost_usd: 0 });
  });

  it("agent.infrastructure (the harness saw the agent's CLI fail to start) is never cached: the next run attempts the case again", async () => {
    const stateDir = join(root, "state-infrastructure");
    const working = (await options(stateDir)).systemUnderTest;
    const broken: SystemUnderTest = {
      label: working.label,
      digest: working.digest,
      run: async (invocation) =>
        invocation.benchCase.case_id === "c-1"
          ? Promise.reject(
              Object.assign(new Error("claude-code: the CLI could not be started: ENOENT"), {
                failure_mode: "agent.infrastructure",
              }),
            )
          : working.run(invocation),
    };
    const first = await runEval(bench.slug, {
      ...(await options(stateDir)),
      systemUnderTest: broken,
      caseFilter: "c-[12]",
    });
    expect(first.report.per_case[0]?.score.failure_modes).toEqual([
      {
        code: "agent.infrastructure",
        severity: "block",
        detail: "Error: claude-code: the CLI could not be started: ENOENT",
      },
    ]);
    const sut = counting(working);
    const second = await runEval(bench.slug, {
      ...(await options(stateDir)),
      systemUnderTest: sut,
      caseFilter: "c-[12]",
    });
    expect(sut.calls).toBe(1);
    expect(second.caseResults.map((r) => [r.case_id, r.cacheHit])).toEqual([
      ["c-1", false],
      ["c-2", true],
    ]);
    // Each case is recorded with its content digest (the pool's case identity), the one the registry loaded.
    const loaded = await loadCases(await loadTaskClass(bench.slug, { benchRoot: bench.benchRoot }));
    expect(second.report.per_case.map((c) => c.case_digest)).toEqual(
      ["c-1", "c-2"].map((id) => loaded.find((c) => c.case_id === id)!.case_digest),
    );
    expect(new Set(second.report.per_case.map((c) => c.case_digest)).size).toBe(2);
  });

  it("stops at the cost cap: outstanding cases cancelled, partial run recorded as incomplete", async () => {
    const result = await runEval(bench.slug, {
      ...(await options(join(root, "state-cap"), "full")),
      concurrency: 1,
      maxCostUsd: 1.5,
    });
    expect(result.costCapExceeded).toBe(true);
    expect(result.report.complete).toBe(false);
    expect(result.report.run_id).toMatch(/^partial:/);
    expect(result.report.per_case).toHaveLength(2);
    expect(result.report.case_count).toBe(4);
    expect(result.report.total_cost_usd).toBe(2);
  });

  it("checks the cap before a case starts: a cap of 0 pays for no case (was: one case paid for)", async () => {
    const sut = counting((await options(join(root, "state-cap0"), "full")).systemUnderTest);
    const warnings: string[] = [];
    const result = await runEval(bench.slug, {
      ...(await options(join(root, "state-cap0"), "full")),
      systemUnderTest: sut,
      concurrency: 1,
      maxCostUsd: 0,
      onWarning: (w) => warnings.push(w.code),
    });
    expect(sut.calls).toBe(0);
    expect(result.costCapExceeded).toBe(true);
    expect(result.report).toMatchObject({ complete: false, incomplete_reason: "cost_cap", total_cost_usd: 0 });
    expect(result.report.per_case).toHaveLength(0);
    expect(warnings).toContain("run.cost_cap");
  });

  it("an external abort cancels the run and records it as incomplete", async () => {
    const controller = new AbortController();
    const sut: SystemUnderTest = {
      label: "slow",
      digest: `blake3:${"2".repeat(64)}`,
      run: (invocation) =>
        new Promise((resolve) => {
          setTimeout(() => controller.abort(), 50);
          invocation.signal.addEventListener("abort", () => resolve({}));
        }),
    };
    const result = await runEval(bench.slug, {
      ...(await options(join(root, "state-abort"))),
      systemUnderTest: sut,
      signal: controller.signal,
    });
    expect(result.cancelled).toBe(true);
    expect(result.report.complete).toBe(false);
    expect(result.report.per_case).toHaveLength(0);
  });

  it("refuses a tampered chain before any SUT call and writes nothing", async () => {
    const stateDir = join(root, "state-tamper");
    const first = await runEval(bench.slug, { ...(await options(stateDir)), caseFilter: "c-1" });
    const text = await readFile(first.recordPath, "utf8");
    await writeFile(first.recordPath, text.replace(/"mean_score":\s*[0-9.]+/, '"mean_score": 1'));
    const sut = counting((await options(stateDir)).systemUnderTest);
    const before = await readdir(join(stateDir, "runs"));
    await expect(runEval(bench.slug, { ...(await options(stateDir)), systemUnderTest: sut })).rejects.toMatchObject({
      code: "EVAL_CHAIN_TAMPERED",
    });
    expect(sut.calls).toBe(0);
    expect(await readdir(join(stateDir, "runs"))).toEqual(before);
  });

  it("refuses a case edited after a run stamped it, its size and mtime kept, before any SUT call", async () => {
    const root4 = await mkdtemp(join(tmpdir(), "evalgate-run-stamped-"));
    try {
      const own = await makeTaskClassBench(root4, { rubric: UPPER_RUBRIC, cases: { a: "one", b: "two" } });
      // Trees changed in the last 2 s are not stamped (coarse ctime clock).
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const stateDir = join(root4, "state");
      const run = async () =>
        runEval(own.slug, {
          systemUnderTest: sut,
          benchRoot: own.benchRoot,
          stateDir,
        });
      let sut = counting(await moduleSut(`${sutFile}#halfUpper`));
      await run();
      expect(readFileSync(join(stateDir, "case-trees.sealed"), "utf8")).toContain("expected/text.txt");
      const file = join(own.benchPath, "cases", "b", "expected", "text.txt");
      const before = statSync(file);
      await writeFile(
        file,
        readFileSync(file, "utf8").replace(/^./, (c) => (c === "x" ? "y" : "x")),
      );
      expect(statSync(file).size).toBe(before.size);
      utimesSync(file, before.atime, before.mtime);
      sut = counting(await moduleSut(`${sutFile}#halfUpper`));
      await expect(run()).rejects.toMatchObject({ code: "EVAL_CASE_DIGEST_MISMATCH" });
      expect(sut.calls).toBe(0);
    } finally {
      await rm(root4, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses a case whose digests.yaml entry was forged in the case-tree checkpoint (its seal no longer holds)", async () => {
    const root6 = await mkdtemp(join(tmpdir(), "evalgate-run-forged-"));
    try {
      const own = await makeTaskClassBench(root6, { rubric: UPPER_RUBRIC, cases: { a: "one", b: "two" } });
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const stateDir = join(root6, "state");
      let sut = counting(await moduleSut(`${sutFile}#halfUpper`));
      const run = async () => runEval(own.slug, { systemUnderTest: sut, benchRoot: own.benchRoot, stateDir });
      await run();
      // The attack: change case b, learn its new digest, put digests.yaml back as it was, and plant the new
      // digest in the checkpoint's kept copy of digests.yaml (with digests.yaml's current file key).
      const digestsPath = join(own.benchPath, "cases", "digests.yaml");
      const signed = await readFile(digestsPath, "utf8");
      await writeFile(join(own.benchPath, "cases", "b", "expected", "text.txt"), "loosened");
      await signBench({ benchPath: own.benchPath });
      const forgedDigest = /\n  b:\n    digest: (blake3:[0-9a-f]{64})/.exec(await readFile(digestsPath, "utf8"))![1]!;
      await writeFile(digestsPath, signed);
      await new Promise((resolve) => setTimeout(resolve, 2_100));
      const sealedPath = join(stateDir, "case-trees.sealed");
      const [body, macLine] = (await readFile(sealedPath, "utf8")).split("\n");
      const checkpoint = JSON.parse(body!) as { entries: Record<string, string> };
      const entryKey = Object.keys(checkpoint.entries).find((key) => key.startsWith("file\0digests.yaml:"))!;
      const kept = JSON.parse(checkpoint.entries[entryKey]!) as {
        key: string;
        value: { cases: Record<string, { digest: string }> };
      };
      const stats = statSync(digestsPath, { bigint: true });
      kept.key = `${stats.dev}:${stats.ino}:${stats.size}:${stats.ctimeNs}:${stats.mtimeNs}`;
      kept.value.cases.b!.digest = forgedDigest;
      checkpoint.entries[entryKey] = JSON.stringify(kept);
      await writeFile(sealedPath, `${JSON.stringify(checkpoint)}\n${macLine}\n`);
      sut = counting(await moduleSut(`${sutFile}#halfUpper`));
      await expect(run()).rejects.toMatchObject({ code: "EVAL_CASE_DIGEST_MISMATCH" });
      expect(sut.calls).toBe(0);
    } finally {
      await rm(root6, { recursive: true, force: true });
    }
  }, 60_000);

  it("refuses a poisoned case (digest mismatch) before any SUT call", async () => {
    const root3 = await mkdtemp(join(tmpdir(), "evalgate-run-poison-"));
    try {
      const own = await makeTaskClassBench(root3, { rubric: UPPER_RUBRIC, cases: { a: "one", b: "two" } });
      await writeFile(join(own.benchPath, "cases", "b", "expected", "text.txt"), "loosened");
      const sut = counting(await moduleSut(`${sutFile}#halfUpper`));
      await expect(
        runEval(own.slug, { systemUnderTest: sut, benchRoot: own.benchRoot, stateDir: join(root3, "state") }),
      ).rejects.toMatchObject({ code: "EVAL_CASE_DIGEST_MISMATCH" });
      expect(sut.calls).toBe(0);
      expect(existsSync(join(root3, "state", "runs"))).toBe(false);
    } finally {
      await rm(root3, { recursive: true, force: true });
    }
  });

  it("a run of many cases leaves no listener build-up on its abort signal (no process warnings)", async () => {
    const root5 = await mkdtemp(join(tmpdir(), "evalgate-run-many-"));
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.message);
    process.on("warning", onWarning);
    try {
      const many = await makeTaskClassBench(root5, {
        rubric: UPPER_RUBRIC,
        cases: Object.fromEntries(Array.from({ length: 14 }, (_, i) => [`m-${String(i).padStart(2, "0")}`, `t${i}`])),
      });
      const result = await runEval(many.slug, {
        systemUnderTest: await moduleSut(`${sutFile}#noop`),
        benchRoot: many.benchRoot,
        stateDir: join(root5, "state"),
        concurrency: 4,
      });
      expect(result.report.per_case).toHaveLength(14);
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await rm(root5, { recursive: true, force: true });
    }
  });

  it("rejects bad options and an unknown task class with their codes", async () => {
    await expect(runEval(bench.slug, { ...(await options(join(root, "x"))), concurrency: 0 })).rejects.toMatchObject({
      code: "EVAL_USAGE",
    });
    await expect(runEval(bench.slug, { ...(await options(join(root, "x"))), maxCostUsd: -1 })).rejects.toMatchObject({
      code: "EVAL_USAGE",
    });
    await expect(
      runEval(bench.slug, { ...(await options(join(root, "x"))), timeoutPerCaseSeconds: 0 }),
    ).rejects.toMatchObject({ code: "EVAL_USAGE" });
    await expect(runEval("no-such-class", await options(join(root, "x")))).rejects.toMatchObject({
      code: "EVAL_TASK_CLASS_NOT_FOUND",
    });
  });
});

describe("adversarial rubrics inside a real run: each case ends in the right failure mode, the run continues", () => {
  it("maps every adversary to its failure mode", async () => {
    const root4 = await mkdtemp(join(tmpdir(), "evalgate-run-adv-"));
    process.env.ANTHROPIC_API_KEY = "sk-ant-planted";
    try {
      const ids = [
        "honest",
        "env-snoop",
        "write-cwd",
        "write-outside",
        "spawn-child",
        "loop-forever",
        "print-1gb",
        "invalid-json",
        "llm-confidence",
        "unknown-failure-code",
      ];
      const adv = await makeTaskClassBench(root4, {
        slug: "adversarial",
        rubric: ADVERSARIAL_RUBRIC.replace(
          'readFileSync(request.case.input_path + "/data.txt", "utf8")',
          'readFileSync(request.case.input_path + "/text.txt", "utf8")',
        ).replace('request.context.workspace_path + "/data.txt"', 'request.context.workspace_path + "/text.txt"'),
        cases: Object.fromEntries(ids.map((id) => [id, `text of ${id}`])),
        // Long enough for print-1gb to reach the 8 MB output cap on a loaded 2-core machine (at 2 s it timed
        // out instead in two full-suite runs with a load average of 10); loop-forever still times out.
        rubricWallClockSeconds: 5,
      });
      const result = await runEval("adversarial", {
        systemUnderTest: await moduleSut(`${sutFile}#noop`),
        benchRoot: adv.benchRoot,
        stateDir: join(root4, "state"),
        concurrency: 4,
      });
      const byId = Object.fromEntries(result.report.per_case.map((c) => [c.case_id, c.score]));
      const codes = (id: string) => byId[id]!.failure_modes.map((m) => m.code);
      expect(result.report.complete).toBe(true);
      expect(result.report.per_case).toHaveLength(ids.length);
      expect(byId["honest"]!.score).toBe(1);
      expect(byId["env-snoop"]!.score).toBe(1);
      expect(byId["write-cwd"]!.score).toBe(1);
      expect(codes("write-outside")).toEqual(["rubric.malformed_output"]);
      expect(codes("spawn-child")).toEqual(["rubric.malformed_output"]);
      expect(codes("loop-forever")).toEqual(["rubric.timeout"]);
      expect(codes("print-1gb")).toEqual(["rubric.malformed_output"]);
      expect(codes("invalid-json")).toEqual(["rubric.malformed_output"]);
      expect(codes("llm-confidence")).toEqual(["rubric.unknown_breakdown_key"]);
      expect(byId["llm-confidence"]!.breakdown).toEqual({ quality: 0.9 });
      expect(codes("unknown-failure-code")).toEqual(["rubric.unknown_failure_mode"]);
      expect(byId["unknown-failure-code"]!.failure_modes[0]!.detail).toMatch(/^made_up_code/);
      // The rubric claimed cost 99: the report carries what the SUT reported (nothing).
      expect(result.report.total_cost_usd).toBe(0);
      expect(result.report.per_case.flatMap((c) => Object.keys(c.score.breakdown))).not.toContain("llm_confidence");
    } finally {
      delete process.env.ANTHROPIC_API_KEY;
      await rm(root4, { recursive: true, force: true });
    }
  }, 60_000);
});
