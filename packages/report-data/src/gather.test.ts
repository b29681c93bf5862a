// Gathering through a real chain (appendRunRecord), real detail files and the repo's own bench and tiers:
// which run is shown, its trend and baseline, the verdicts (judged by @eval/promotion), and a run's CI views.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendRunRecord, buildChainRecord, getHostFingerprint, readChainHead, verifyChain } from "@eval/audit-chain";
import { ignoreWarnings } from "@eval/errors";
import type { EvalWarning } from "@eval/errors";
import type { AnyBenchRunReport, BenchRunReportInput } from "@eval/models";
import { runReport } from "@eval/test-utils";
import { gatherReportData } from "./gather.ts";
import { recordedRunViews } from "./recorded-run.ts";
import { listRecordedRuns } from "./run-list.ts";

const repo = join(import.meta.dirname, "..", "..", "..");
const BENCH = join(repo, "bench");
const TIERS = join(repo, "docs", "trust-tiers.yaml");
let stateDir: string;
const recorded: AnyBenchRunReport[] = [];

async function append(report: BenchRunReportInput): Promise<void> {
  const runsDir = join(stateDir, "runs");
  const host = await getHostFingerprint(stateDir);
  const { record } = await appendRunRecord(
    { ...report, prev_hash: (await readChainHead(runsDir)).head, host_fingerprint: host },
    { runsDir, hostFingerprint: host },
  );
  recorded.push(record.report);
}

beforeAll(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "report-data-"));
  await append(runReport({ runId: "run-a", passed: 8 }));
  await append(runReport({ runId: "run-b", complete: false, unfinished: 2 }));
  await append(runReport({ runId: "run-c", passed: 12 }));
  await append(runReport({ runId: "run-d", taskClass: "migration-chainguard-distroless", cases: 3 }));
  // run-c's first case has a detail file with the SUT's error, as the runner writes it.
  const cases = join(stateDir, "runs", "run-c", "cases");
  await mkdir(cases, { recursive: true });
  const score = recorded[2]!.per_case[0]!.score;
  const detail = {
    schema_version: "evalgate.case_detail.v1",
    run_id: "run-c",
    task_class: "vuln-remediation",
    case_id: "000-case",
    cache_key: `blake3:${"a".repeat(64)}`,
    invocation_tag: "t",
    sut_output: null,
    sut_error: "exit 3",
    sut_wall_clock_ms: 3,
    rubric: null,
    score,
  };
  await writeFile(join(cases, "000-case.json"), JSON.stringify(detail));
}, 60_000);
afterAll(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

describe("gatherReportData", () => {
  it("shows the newest run of a task class with its trend of evidence runs, a baseline and a verdict per tier", async () => {
    const warnings: EvalWarning[] = [];
    const data = await gatherReportData({
      stateDir,
      benchRoot: BENCH,
      tiersPath: TIERS,
      taskClass: "vuln-remediation",
      baselineRunId: "run-a",
      harnessVersion: "9.9.9",
      onWarning: (w) => warnings.push(w),
      now: new Date("2026-11-26T00:00:00Z"),
    });
    expect(warnings).toEqual([]);
    expect(data).toMatchObject({
      generated_at: "2026-11-26T00:00:00.000Z",
      harness_version: "9.9.9",
      chain: { verified: true, records: 4, problem: null },
    });
    expect(data.run.run_id).toBe("run-c");
    expect(data.run).not.toHaveProperty("per_case");
    expect(data.record).toMatchObject({ sequence: 2, chain_hash: expect.stringMatching(/^sha256:/) });
    // The incomplete run-b is no evidence: the trend holds run-a and run-c, oldest first.
    expect(data.trend.map((point) => point.run_id)).toEqual(["run-a", "run-c"]);
    expect(data.baseline).toMatchObject({ run_id: "run-a", newly_passing: 4, newly_failing: 0, shared_cases: 12 });
    expect(data.baseline!.mean_score_change).toBeCloseTo((4 * 0.8) / 12, 10);
    expect(data.verdicts.map((v) => v.target_tier)).toEqual(["bronze", "silver", "gold"]);
    expect(data.tiers).toHaveLength(4);
    expect(data.cases[0]).toMatchObject({
      case_id: "000-case",
      cache_hit: false,
      evidence: { sut_error: "exit 3" },
      baseline: { passed: true },
    });
    expect(data.cases[1]).toMatchObject({ evidence: null, transcript: null });
  });

  it("finds a run by id with or without its partial: prefix, the newest of any task class by default, and names what is missing", async () => {
    const base = { stateDir, benchRoot: BENCH, tiersPath: join(stateDir, "no-tiers.yaml"), harnessVersion: "0" };
    expect((await gatherReportData({ ...base, runId: "run-b" })).run.run_id).toBe("partial:run-b");
    const newest = await gatherReportData(base);
    expect(newest.run.run_id).toBe("run-d");
    expect(newest.verdicts).toEqual([]);
    await expect(gatherReportData({ ...base, runId: "run-z" })).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
      message: expect.stringContaining("no run run-z is recorded"),
    });
    await expect(gatherReportData({ ...base, taskClass: "nothing-here" })).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
      message: expect.stringContaining("no run of nothing-here"),
    });
    await expect(gatherReportData({ ...base, runId: "run-c", baselineRunId: "run-d" })).rejects.toMatchObject({
      code: "EVAL_REPORT_NOT_FOUND",
    });
  });
});

describe("recordedRunViews", () => {
  it("builds a just-recorded run's CI views from its report, judging only when a summary needs verdicts", async () => {
    const report = recorded[2]!;
    const onWarning = () => undefined;
    const junitOnly = await recordedRunViews({
      stateDir,
      tiersPath: TIERS,
      report,
      chain: null,
      taskClass: { benchRoot: join(stateDir, "no-bench") },
      withVerdicts: false,
      onWarning,
    });
    expect(junitOnly.verdicts).toEqual([]);
    expect(junitOnly.cases).toHaveLength(12);
    expect(junitOnly.run.run_id).toBe("run-c");
    const chain = await verifyChain({ runsDir: join(stateDir, "runs") });
    const known = { name: "vuln-remediation", minCasesForPromotion: { bronze: 10, silver: 15, gold: 32 } };
    const summary = await recordedRunViews({
      stateDir,
      tiersPath: TIERS,
      report,
      chain,
      taskClass: known,
      withVerdicts: true,
      onWarning,
    });
    expect(summary.verdicts.map((v) => v.target_tier)).toEqual(["bronze", "silver", "gold"]);
    const codes: string[] = [];
    const unloaded = await recordedRunViews({
      stateDir,
      tiersPath: TIERS,
      report,
      chain: null,
      taskClass: { benchRoot: join(stateDir, "no-bench") },
      withVerdicts: true,
      onWarning: (w) => codes.push(w.code),
    });
    expect(unloaded.verdicts).toEqual([]);
    expect(codes).toContain("report.no_task_class");
  });
});

describe("listRecordedRuns", () => {
  it("lists matching runs newest first, up to the limit", async () => {
    expect((await listRecordedRuns(stateDir, {}, 10, ignoreWarnings)).map((entry) => entry.run_id)).toEqual([
      "run-d",
      "run-c",
      "partial:run-b",
      "run-a",
    ]);
    expect(
      (await listRecordedRuns(stateDir, { taskClass: "vuln-remediation", complete: true }, 10, ignoreWarnings)).map(
        (entry) => entry.run_id,
      ),
    ).toEqual(["run-c", "run-a"]);
    expect((await listRecordedRuns(stateDir, {}, 2, ignoreWarnings)).map((entry) => entry.run_id)).toEqual([
      "run-d",
      "run-c",
    ]);
  });
});

describe("the trend of a long history", () => {
  it("shows the newest 1,000 evidence runs, oldest first, ending at the newest", async () => {
    const dir = await mkdtemp(join(tmpdir(), "report-data-trend-"));
    const runsDir = join(dir, "runs");
    await mkdir(runsDir, { recursive: true });
    const host = await getHostFingerprint(dir);
    let prev = (await readChainHead(runsDir)).head;
    for (let index = 0; index < 1005; index += 1) {
      const built = await buildChainRecord(
        { ...runReport({ runId: `run-${index}`, passed: 8 }), prev_hash: prev, host_fingerprint: host },
        {
          prevHash: prev,
          sequence: index,
          recordedAt: new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString(),
          hostFingerprint: host,
        },
      );
      await writeFile(join(runsDir, built.fileName), built.text, { mode: 0o600 });
      prev = built.record.chain_hash;
    }
    const data = await gatherReportData({
      stateDir: dir,
      benchRoot: BENCH,
      tiersPath: TIERS,
      harnessVersion: "0.1.0",
      onWarning: ignoreWarnings,
    });
    expect(data.trend).toHaveLength(1000);
    expect(data.trend[0]!.run_id).toBe("run-5");
    expect(data.trend.at(-1)!.run_id).toBe("run-1004");
    await rm(dir, { recursive: true, force: true });
  }, 180_000);
});
