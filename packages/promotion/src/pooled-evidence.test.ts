// Attack tests for pooled evidence, through a real chain (appendRunRecord) and the real verdict path
// (issueVerdict): the SUT's attempts are simulated with a seeded random source, each run's record carries the
// figures its per-case scores give (as the runner writes them).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { appendRunRecord, getHostFingerprint, readChainHead } from "@eval/audit-chain";
import type { BenchRunReportInput } from "@eval/models";
import { caseGateStatistics, clopperPearsonLowerBound, seededRandom } from "@eval/statistics";
import { runReport } from "@eval/test-utils";
import { issueVerdict } from "./issue-verdict.ts";
import { loadTierConfig } from "./tier-config.ts";

const TIERS = join(import.meta.dirname, "..", "..", "..", "docs", "trust-tiers.yaml");
const CASES = 12;
let stateDir: string;
beforeEach(async () => {
  stateDir = await mkdtemp(join(tmpdir(), "pooled-"));
});
afterEach(async () => {
  await rm(stateDir, { recursive: true, force: true });
});

type BenchScore = BenchRunReportInput["per_case"][number]["score"];
const pass = (ms: number): BenchScore => ({
  passed: true,
  score: 1,
  breakdown: {},
  failure_modes: [],
  cost_usd: 0,
  wall_clock_ms: ms,
});
/** The SUT's own failure: it exits 1 when its own check fails (a crash, `sut.exception`). */
const crash = (ms: number): BenchScore => ({
  passed: false,
  score: 0,
  breakdown: {},
  failure_modes: [{ code: "sut.exception", severity: "warn", detail: "exit 1" }],
  cost_usd: 0,
  wall_clock_ms: ms,
});

/** Case i's identity in a run: its id and, for a report that records it, its content digest. */
interface CaseIdentity {
  readonly case_id: string;
  readonly case_digest?: string;
}

/** Appends one run whose case i scored scores[i] (and is cases[i] when given), its figures computed from them. */
async function record(runId: string, scores: readonly BenchScore[], cases?: readonly CaseIdentity[]): Promise<number> {
  const runsDir = join(stateDir, "runs");
  const template = runReport({
    cases: CASES,
    heldOut: 8,
    runId,
    prevHash: (await readChainHead(runsDir)).head,
    host: await getHostFingerprint(stateDir),
  });
  const perCase = template.per_case.map((entry, i) => ({ ...entry, ...cases?.[i], score: scores[i]! }));
  const figures = caseGateStatistics(
    perCase.map((c) => [c.score]),
    { scoreKind: "binary", trials: 1, orderSeed: template.selection.selected_case_ids_digest },
  );
  const share = figures.passedCount / CASES;
  const report: BenchRunReportInput = {
    ...template,
    per_case: perCase,
    score_kind: "binary",
    lower_bound_method: "clopper_pearson",
    bound_quantity: "pass_rate",
    mean_score: figures.mean,
    score_stddev: figures.stddev,
    lower_bound_95: figures.lowerBound95,
    passed_count: figures.passedCount,
    block_severity_failure_modes: [
      ...new Set(
        perCase.flatMap((c) => c.score.failure_modes.filter((m) => m.severity === "block").map((m) => m.code)),
      ),
    ].sort(),
    failed_trial_count: CASES - figures.passedCount,
    reliability: { ...template.reliability, pass_at_1: share, pass_at_k: share, pass_hat_k: share },
  };
  await appendRunRecord(report, {
    runsDir: join(stateDir, "runs"),
    hostFingerprint: await getHostFingerprint(stateDir),
  });
  return figures.lowerBound95;
}

async function verdictFor(runId?: string) {
  const issued = await issueVerdict({
    config: await loadTierConfig(TIERS),
    runsDir: join(stateDir, "runs"),
    recommendationsDir: join(stateDir, "recommendations"),
    taskClass: { name: "vuln-remediation", minCasesForPromotion: { bronze: 10 } },
    ...(runId === undefined ? {} : { runId }),
  });
  expect(issued.tampered).toBeNull();
  return issued.verdict;
}

describe("every attempt counts", () => {
  it("the crash-retry SUT (guesses 1 in 4, exits 1 on its own failed check): reruns retry only its crashes, and cannot raise the pooled bound", async () => {
    const random = seededRandom("crash-retry");
    let clock = 1;
    let scores: BenchScore[] = Array.from({ length: CASES }, () => (random() < 0.25 ? pass(clock++) : crash(clock++)));
    const honest = await record("run-0", scores);
    let reruns = 0;
    // A crash is not cached, a pass is: a rerun reads the cached passes (the same scores) and retries the crashes.
    while (scores.some((s) => !s.passed) && reruns < 40) {
      reruns += 1;
      scores = scores.map((s) => (s.passed ? s : random() < 0.25 ? pass(clock++) : crash(clock++)));
      await record(`run-${reruns}`, scores);
    }
    expect(scores.every((s) => s.passed)).toBe(true); // the newest run is 12 of 12: the old gate's SUFFICIENT
    expect(clopperPearsonLowerBound(CASES, CASES)).toBeGreaterThan(0.6);
    const verdict = await verdictFor();
    expect(verdict.evidence_sufficient).toBe(false);
    expect(verdict.lower_bound_95).toBe(honest);
    expect(verdict.evidence_pool).toMatchObject({
      attempts_per_case: 1,
      runs_excluded: [],
      distinct_suts_on_held_out: 1,
    });
    expect(verdict.evidence_pool!.runs_pooled).toHaveLength(reruns + 1);
    expect(verdict.evidence_pool!.attempts_unused).toBeGreaterThan(0);
    // A chosen --run shows that run's own figures and changes nothing else.
    const chosen = await verdictFor(`run-${reruns}`);
    expect(chosen.evidence_pool!.run_figures).toMatchObject({ run_id: `run-${reruns}`, passed_count: CASES });
    const { evaluated_at: _a, evidence_pool: poolA, report_run_id: _r, report_chain_head: _h, ...restA } = verdict;
    const { evaluated_at: _b, evidence_pool: poolB, report_run_id: _s, report_chain_head: _i, ...restB } = chosen;
    expect(restB).toEqual(restA);
    expect({ ...poolB, run_figures: null }).toEqual({ ...poolA, run_figures: null });
  });

  it("20 --no-cache reruns of a stochastic SUT: the pooled bound stays below the true rate, and --run cannot pick the luckiest", async () => {
    const random = seededRandom("no-cache");
    let clock = 1;
    const truth = 0.6;
    const single: number[] = [];
    for (let run = 0; run <= 20; run += 1) {
      single.push(
        await record(
          `run-${run}`,
          Array.from({ length: CASES }, () => (random() < truth ? pass(clock++) : crash(clock++))),
        ),
      );
    }
    const verdict = await verdictFor();
    expect(verdict.evidence_pool).toMatchObject({ attempts_per_case: 21, attempts_unused: 0 });
    expect(verdict.lower_bound_95).toBeLessThan(truth);
    const luckiest = single.indexOf(Math.max(...single));
    expect(Math.max(...single)).toBeGreaterThan(verdict.lower_bound_95);
    const chosen = await verdictFor(`run-${luckiest}`);
    expect(chosen.lower_bound_95).toBe(verdict.lower_bound_95);
    expect(chosen.evidence_sufficient).toBe(verdict.evidence_sufficient);
  });

  it("pools nothing from another SUT, and counts the SUTs that have seen the held-out cases", async () => {
    await record(
      "run-0",
      Array.from({ length: CASES }, (_, i) => pass(i + 1)),
    );
    const runsDir = join(stateDir, "runs");
    const other = runReport({
      cases: CASES,
      heldOut: 8,
      runId: "other",
      prevHash: (await readChainHead(runsDir)).head,
      host: await getHostFingerprint(stateDir),
    });
    await appendRunRecord(
      { ...other, sut_digest: `blake3:${"a".repeat(64)}`, lower_bound_95: 0.6843708377400617 },
      { runsDir, hostFingerprint: await getHostFingerprint(stateDir) },
    );
    const verdict = await verdictFor("run-0");
    expect(verdict.evidence_pool).toMatchObject({
      runs_pooled: ["run-0"],
      runs_excluded: [{ reason: "another SUT", count: 1, newest: ["other"] }],
      distinct_suts_on_held_out: 2,
    });
  });

  it("counts the runs it leaves out per reason and names only the newest 10 (a long history is not a 6 MB verdict)", async () => {
    const runsDir = join(stateDir, "runs");
    const host = await getHostFingerprint(stateDir);
    for (let i = 0; i < 13; i += 1) {
      const other = runReport({
        cases: CASES,
        runId: `other-${i}`,
        prevHash: (await readChainHead(runsDir)).head,
        host,
      });
      await appendRunRecord({ ...other, sut_digest: `blake3:${"a".repeat(64)}` }, { runsDir, hostFingerprint: host });
    }
    await record(
      "run-0",
      Array.from({ length: CASES }, (_, i) => pass(i + 1)),
    );
    const verdict = await verdictFor();
    expect(verdict.evidence_pool!.runs_excluded).toEqual([
      { reason: "another SUT", count: 13, newest: Array.from({ length: 10 }, (_, i) => `other-${12 - i}`) },
    ]);
  });
});

/** The rubric past its deadline: the SUT's work hung it (an endless loop in the code it wrote). */
const rubricHung = (ms: number): BenchScore => ({
  passed: false,
  score: 0,
  breakdown: {},
  failure_modes: [{ code: "rubric.timeout", severity: "block", detail: "no answer within 30000 ms" }],
  cost_usd: 0,
  wall_clock_ms: ms,
});
/** The harness saw the agent's CLI fail to start (`agent.infrastructure`). */
const cliMissing = (ms: number): BenchScore => ({
  passed: false,
  score: 0,
  breakdown: {},
  failure_modes: [
    {
      code: "agent.infrastructure",
      severity: "block",
      detail: "claude-code: the CLI could not be started: spawn ENOENT",
    },
  ],
  cost_usd: 0,
  wall_clock_ms: ms,
});

describe("what is left out of the evidence", () => {
  it("ATTACK: a SUT that hangs the rubric on the cases it cannot solve does not drop them from the evidence", async () => {
    // 7 of 12 solved; the other 5 hang the rubric (fewer than half: the run is not refused as a broken rubric).
    const honest = await record(
      "run-0",
      Array.from({ length: CASES }, (_, i) => (i < 7 ? pass(i + 1) : rubricHung(i + 1))),
    );
    const verdict = await verdictFor();
    expect(verdict.lower_bound_95).toBe(honest);
    expect(verdict.lower_bound_95).toBeCloseTo(clopperPearsonLowerBound(7, CASES), 12);
    expect(verdict.evidence_pool).toMatchObject({ attempts_per_case: 1, harness_faults_excluded: 0 });
  });

  it("an agent infrastructure failure leaves its whole run out (passes included), never the one case; the verdict says which and why", async () => {
    const honest = await record(
      "run-0",
      Array.from({ length: CASES }, (_, i) => (i < 6 ? pass(i + 1) : crash(i + 1))),
    );
    // 20 reruns in which every case the SUT fails ends as an infrastructure failure instead: none of them counts.
    const random = seededRandom("infrastructure");
    let clock = 100;
    for (let run = 1; run <= 20; run += 1) {
      await record(
        `run-${run}`,
        Array.from({ length: CASES }, () => (random() < 0.5 ? pass(clock++) : cliMissing(clock++))),
      );
    }
    const verdict = await verdictFor();
    expect(verdict.lower_bound_95).toBe(honest);
    expect(verdict.evidence_pool!.runs_pooled).toEqual(["run-0"]);
    const excluded = verdict.evidence_pool!.runs_excluded;
    expect(excluded.reduce((sum, group) => sum + group.count, 0)).toBe(20);
    expect(excluded.flatMap((group) => group.newest).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `run-${i + 1}`).sort(),
    );
    for (const group of excluded)
      expect(group.reason).toMatch(
        /^agent infrastructure failure on \d+ attempt\(s\), first \d{3}-case: claude-code: the CLI could not be started: spawn ENOENT$/,
      );
  });

  it("a chain whose only run failed in the agent's infrastructure pools nothing and is not sufficient", async () => {
    await record(
      "run-0",
      Array.from({ length: CASES }, (_, i) => (i === 3 ? cliMissing(i + 1) : pass(i + 1))),
    );
    const verdict = await verdictFor();
    expect(verdict.evidence_sufficient).toBe(false);
    expect(verdict.evidence_pool).toMatchObject({ runs_pooled: [], attempts_per_case: 0, attempts_recorded: 0 });
    expect(verdict.evidence_pool!.runs_excluded[0]!.reason).toContain("first 003-case");
  });
});

const digest = (i: number): string => `blake3:${i.toString(16).padStart(64, "0")}`;
const ids = (rename: (i: number) => string, content: (i: number) => string = digest): CaseIdentity[] =>
  Array.from({ length: CASES }, (_, i) => ({ case_id: rename(i), case_digest: content(i) }));
const original = (i: number): string => `${String(i).padStart(3, "0")}-case`;

describe("cases are matched across runs by content, not by id", () => {
  it("ATTACK: the failing cases renamed and rerun get no fresh first attempt: their earlier attempts are theirs", async () => {
    // Six of 12 fail; the six failing cases are re-numbered (same files) and rerun, and the rerun is lucky.
    const scenario = async (rerunIds: CaseIdentity[]) => {
      await rm(stateDir, { recursive: true, force: true });
      stateDir = await mkdtemp(join(tmpdir(), "pooled-"));
      await record(
        "run-0",
        Array.from({ length: CASES }, (_, i) => (i < 6 ? pass(i + 1) : crash(i + 1))),
        ids(original),
      );
      await record(
        "run-1",
        Array.from({ length: CASES }, (_, i) => pass(100 + i)),
        rerunIds,
      );
      return verdictFor();
    };
    const kept = await scenario(ids(original));
    const renamed = await scenario(ids((i) => (i < 6 ? original(i) : `${String(i + 100).padStart(3, "0")}-case`)));
    expect(renamed.evidence_pool).toMatchObject({
      runs_pooled: ["run-0", "run-1"],
      attempts_per_case: 2,
      attempts_unused: 0,
    });
    expect(renamed.lower_bound_95).toBe(kept.lower_bound_95);
    expect(renamed.lower_bound_95).toBeLessThan(clopperPearsonLowerBound(CASES, CASES) - 0.2);
  });

  it("a case whose content changed under the same id is a new case: its earlier attempts are not pooled with it", async () => {
    await record(
      "run-0",
      Array.from({ length: CASES }, (_, i) => (i === 0 ? crash(1) : pass(i + 1))),
      ids(original),
    );
    // Case 0's files change (a new digest); the others are the same cases, cached.
    await record(
      "run-1",
      Array.from({ length: CASES }, (_, i) => (i === 0 ? pass(50) : pass(i + 1))),
      ids(original, (i) => (i === 0 ? digest(999) : digest(i))),
    );
    const verdict = await verdictFor();
    expect(verdict.evidence_pool).toMatchObject({ attempts_per_case: 1, attempts_recorded: CASES });
    expect(verdict.lower_bound_95).toBeCloseTo(clopperPearsonLowerBound(CASES, CASES), 12);
  });

  it("cases of one run that share their files (other canary pins) are told apart by id", async () => {
    const shared = ids(original, (i) => digest(i % 6));
    const honest = await record(
      "run-0",
      Array.from({ length: CASES }, (_, i) => (i < 6 ? pass(i + 1) : crash(i + 1))),
      shared,
    );
    await record(
      "run-1",
      Array.from({ length: CASES }, (_, i) => (i < 6 ? pass(i + 1) : crash(i + 1))),
      shared,
    );
    const verdict = await verdictFor();
    expect(verdict.lower_bound_95).toBe(honest);
    expect(verdict.evidence_pool).toMatchObject({ attempts_per_case: 1, attempts_recorded: CASES });
  });

  it("a report recorded before case digests is pooled by id", async () => {
    await record(
      "run-0",
      Array.from({ length: CASES }, (_, i) => (i < 6 ? pass(i + 1) : crash(i + 1))),
    );
    await record(
      "run-1",
      Array.from({ length: CASES }, (_, i) => pass(100 + i)),
      ids(original),
    );
    const verdict = await verdictFor();
    expect(verdict.evidence_pool).toMatchObject({
      runs_pooled: ["run-0", "run-1"],
      attempts_per_case: 2,
      attempts_recorded: 2 * CASES,
    });
  });
});
