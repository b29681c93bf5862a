// Verdicts and attestations of runs recorded as report v1, v2 and v3 are byte for byte what they were when
// promotion branched on the stored report's version: the digests below were taken from that code. The records
// are real chain records (the golden chain an older evalgate wrote, and a chain of every version built here),
// judged through the real paths (issueVerdict, tierVerdicts, attestRun).
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { buildChainRecord, generateSigningKey, listRuns, loadSigningKey, readRecordFile } from "@eval/audit-chain";
import { GENESIS_PREV_HASH } from "@eval/models";
import type { BenchRunReportInput } from "@eval/models";
import { caseGateStatistics } from "@eval/statistics";
import { copyGoldenState, goldenRuns, legacyRunReport, runReport } from "@eval/test-utils";
import { attestRun } from "./attestation.ts";
import { issueVerdict } from "./issue-verdict.ts";
import { loadTierConfig } from "./tier-config.ts";
import type { TierConfig } from "./tier-config.ts";
import { tierVerdicts } from "./tier-verdicts.ts";

const TIERS = join(import.meta.dirname, "..", "..", "..", "docs", "trust-tiers.yaml");
const HOST = "5f0c7e1a-3b7d-4c1e-9a55-0b6f6f0f2a11";
const NOW = new Date("2026-11-27T00:00:00.000Z");
const MINIMUMS = { bronze: 10, silver: 12, gold: 12 };

const sha = (value: unknown): string => createHash("sha256").update(JSON.stringify(value)).digest("hex").slice(0, 16);

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

type Score = BenchRunReportInput["per_case"][number]["score"];
const scored = (passed: boolean, code?: string): Score => ({
  passed,
  score: passed ? 1 : 0,
  breakdown: {},
  failure_modes: code === undefined ? [] : [{ code, severity: "warn", detail: code }],
  cost_usd: 0,
  wall_clock_ms: 5,
});

/** A v3 run of one case per trials[i], its figures the ones its per-case scores give (as the runner records them). */
function v3Run(runId: string, trials: readonly Score[][]): BenchRunReportInput {
  const k = trials[0]!.length;
  const template = runReport({ cases: trials.length, heldOut: 8, runId, host: HOST });
  const figures = caseGateStatistics(trials, {
    scoreKind: "binary",
    trials: k,
    orderSeed: template.selection.selected_case_ids_digest,
  });
  const share = figures.passedCount / trials.length;
  return {
    ...template,
    per_case: template.per_case.map((entry, i) => ({
      ...entry,
      case_digest: `blake3:${i.toString(16).padStart(64, "0")}`,
      score: trials[i]![0]!,
      ...(k === 1 ? {} : { trials: trials[i]!, case_value: trials[i]!.reduce((sum, s) => sum + s.score, 0) / k }),
    })),
    score_kind: "binary",
    lower_bound_method: figures.lowerBoundMethod,
    bound_quantity: "pass_rate",
    mean_score: figures.mean,
    score_stddev: figures.stddev,
    lower_bound_95: figures.lowerBound95,
    passed_count: figures.passedCount,
    trials_per_case: k,
    reliability: { ...template.reliability, pass_at_1: share, pass_at_k: share, pass_hat_k: share },
    failed_trial_count: trials.flat().filter((s) => !s.passed).length,
  };
}

const withoutDigests = (report: BenchRunReportInput): BenchRunReportInput => ({
  ...report,
  per_case: report.per_case.map(({ case_digest: _digest, ...entry }) => entry),
});

/** The same run as evalgate recorded it as report v2 (no trials, harness errors or case digests). */
function asV2(report: BenchRunReportInput): Record<string, unknown> {
  const {
    trials_per_case: _k,
    reliability: _r,
    harness_error_count: _e,
    harness_errored_case_ids: _ids,
    failed_trial_count: _f,
    per_case,
    ...rest
  } = report;
  return {
    ...rest,
    schema_version: "evalgate.bench_run_report.v2",
    per_case: per_case.map(({ case_id, curation_class, score }) => ({ case_id, curation_class, score })),
  };
}

const twelve = (passing: (i: number) => boolean, code?: (i: number) => string | undefined): Score[][] =>
  Array.from({ length: 12 }, (_, i) => [scored(passing(i), code?.(i))]);

/** A chain holding a v1, a v2 (with a SUT timeout) and two v3 runs (one trial; three, one case flaky) of one SUT. */
async function everyVersionChain(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "legacy-verdicts-"));
  dirs.push(dir);
  const runsDir = join(dir, "runs");
  await mkdir(runsDir, { recursive: true });
  const reports = [
    legacyRunReport(
      withoutDigests(
        v3Run(
          "v1-run",
          twelve((i) => i < 11),
        ),
      ),
    ),
    asV2(
      v3Run(
        "v2-run",
        twelve(
          (i) => i < 10,
          (i) => (i === 11 ? "sut.timeout" : undefined),
        ),
      ),
    ),
    v3Run(
      "v3-one",
      twelve((i) => i !== 4),
    ),
    v3Run(
      "v3-three",
      Array.from({ length: 12 }, (_, i) => [scored(true), scored(i !== 10), scored(i < 11)]),
    ),
  ];
  let prevHash = GENESIS_PREV_HASH;
  for (const [sequence, report] of reports.entries()) {
    const recordedAt = new Date(Date.parse("2026-11-01T00:00:00.000Z") + sequence * 1000).toISOString();
    const built = await buildChainRecord({ ...report, prev_hash: prevHash } as BenchRunReportInput, {
      sequence,
      hostFingerprint: HOST,
      recordedAt,
      prevHash,
    });
    await writeFile(join(runsDir, built.fileName), built.text, { mode: 0o600 });
    prevHash = built.record.chain_hash;
  }
  return runsDir;
}

/** The tier file, and the same tiers asking for trials and pass^k (what a report before v3 never recorded). */
async function configs(): Promise<Record<string, TierConfig>> {
  const shipped = await loadTierConfig(TIERS);
  const demanding = {
    ...shipped,
    tiers: shipped.tiers.map((tier) =>
      tier.name === "silver"
        ? { ...tier, min_pass_hat_k: 0.3, require_sandbox: false }
        : tier.name === "gold"
          ? { ...tier, min_trials: 3, min_pass_hat_k: 0.2, require_sandbox: false }
          : tier,
    ),
  };
  return { shipped, demanding };
}

/** Each run's verdict for every tier under every config, as written (issueVerdict) and as previewed (tierVerdicts). */
async function verdictDigests(
  runsDir: string,
  runs: readonly { run_id: string; task_class: string; file: string }[],
): Promise<Record<string, string>> {
  const digests: Record<string, string> = {};
  for (const [name, config] of Object.entries(await configs())) {
    for (const run of runs) {
      const taskClass = { name: run.task_class, minCasesForPromotion: MINIMUMS };
      for (const targetTier of ["bronze", "silver", "gold"]) {
        const issued = await issueVerdict({
          config: { ...config, current: { ...config.current, [run.task_class]: "untrusted" } },
          runsDir,
          recommendationsDir: join(runsDir, "..", "recommendations"),
          taskClass,
          runId: run.run_id,
          targetTier,
          now: NOW,
        });
        digests[`${name} ${run.run_id} ${targetTier}`] = sha([issued.verdict, issued.tampered?.message ?? null]);
      }
    }
  }
  for (const run of runs) {
    const { verdicts } = await tierVerdicts({
      tiersPath: TIERS,
      runsDir,
      report: readRecordFile(runsDir, run.file).record.report,
      taskClass: { name: run.task_class, minCasesForPromotion: MINIMUMS },
      chainVerified: true,
      onWarning: () => {},
      now: NOW,
    });
    digests[`preview ${run.run_id}`] = sha(verdicts);
  }
  return digests;
}

async function attestations(runsDir: string, runIds: readonly string[]): Promise<Record<string, string>> {
  const key = (await loadSigningKey({ pem: generateSigningKey().privateKeyPem }))!;
  const digests: Record<string, string> = {};
  for (const runId of runIds) {
    digests[`attest ${runId}`] = await attestRun({ runsDir, runId, key }).then(
      ({ statement }) => sha(statement),
      (error: Error) => `refused: ${error.message}`,
    );
  }
  return digests;
}

describe("verdicts on runs recorded before v3 are what they always were", () => {
  it("a chain of v1, v2 and v3 runs of one SUT: each run's verdicts, previews and attestation", async () => {
    const runsDir = await everyVersionChain();
    const files = (await listRuns(runsDir)).records;
    const runs = ["v1-run", "v2-run", "v3-one", "v3-three"].map((run_id, i) => ({
      run_id,
      task_class: "vuln-remediation",
      file: files[i]!,
    }));
    const digests = {
      ...(await verdictDigests(runsDir, runs)),
      ...(await attestations(runsDir, ["v1-run", "v2-run", "v3-one", "v3-three"])),
    };
    expect(digests).toEqual({
      "attest v1-run": "refused: run v1-run was recorded before report v2: it has no valid bound to attest",
      "attest v2-run": "6493df49b892fcec",
      "attest v3-one": "a8efcb853e4a4dbc",
      "attest v3-three": "95d35aa3ecf370c3",
      "demanding v1-run bronze": "97bfe5ca4b6416b8",
      "demanding v1-run gold": "4314131a8d86272f",
      "demanding v1-run silver": "ccc02611dec2945b",
      "demanding v2-run bronze": "9cfd4f3037c5d624",
      "demanding v2-run gold": "dc7e5d9ac71771b9",
      "demanding v2-run silver": "7e60128666373028",
      "demanding v3-one bronze": "ec1c784df8be88d6",
      "demanding v3-one gold": "9e5c18d89fd918e9",
      "demanding v3-one silver": "d4518ca09655b5ce",
      "demanding v3-three bronze": "ae384857c19f19fb",
      "demanding v3-three gold": "11b00ac3dd671067",
      "demanding v3-three silver": "2225c090a2ecf0f8",
      "preview v1-run": "37d59cb5ca444988",
      "preview v2-run": "121ffe72693bc134",
      "preview v3-one": "a72376a66d817cf6",
      "preview v3-three": "371a3c74c30b92e2",
      "shipped v1-run bronze": "97bfe5ca4b6416b8",
      "shipped v1-run gold": "6d13efa8c581e6ab",
      "shipped v1-run silver": "7f4ca33566e449f9",
      "shipped v2-run bronze": "9cfd4f3037c5d624",
      "shipped v2-run gold": "538c96e7a4721b65",
      "shipped v2-run silver": "83c316218189d7a4",
      "shipped v3-one bronze": "ec1c784df8be88d6",
      "shipped v3-one gold": "e6d46972f18ae38b",
      "shipped v3-one silver": "acce5bc83b2e1cec",
      "shipped v3-three bronze": "ae384857c19f19fb",
      "shipped v3-three gold": "149890b15cd64130",
      "shipped v3-three silver": "43a9eb5071061ec8",
    });
  });

  it("the golden chain (v2 records an older evalgate wrote): each run's verdicts, previews and attestation", async () => {
    const state = copyGoldenState();
    dirs.push(state);
    const runsDir = join(state, "runs");
    const runs = goldenRuns().map((run) => ({ run_id: run.run_id, task_class: run.task_class, file: run.record_file }));
    const digests = {
      ...(await verdictDigests(runsDir, runs)),
      ...(await attestations(
        runsDir,
        runs.map((run) => run.run_id),
      )),
    };
    expect(digests).toEqual({
      "attest 20261122T225303Z-fa0616eb": "37ab8c2dcd0eb216",
      "attest 20261122T225307Z-b5cc6481": "dfff86cb02619e12",
      "attest 20261122T225309Z-e5b86c94": "b6c1ea80b8a33f84",
      "demanding 20261122T225303Z-fa0616eb bronze": "e59e1890606d4813",
      "demanding 20261122T225303Z-fa0616eb gold": "31f94047de4c3568",
      "demanding 20261122T225303Z-fa0616eb silver": "4b409ef13ad99da5",
      "demanding 20261122T225307Z-b5cc6481 bronze": "8ce583878242fc7c",
      "demanding 20261122T225307Z-b5cc6481 gold": "2692a8de9344491f",
      "demanding 20261122T225307Z-b5cc6481 silver": "7262e944e413f39c",
      "demanding 20261122T225309Z-e5b86c94 bronze": "44e9ddc6a75767ad",
      "demanding 20261122T225309Z-e5b86c94 gold": "3724ff00829298a9",
      "demanding 20261122T225309Z-e5b86c94 silver": "b2cf443ae5b3bdb6",
      "preview 20261122T225303Z-fa0616eb": "b3ba8e98407a00fb",
      "preview 20261122T225307Z-b5cc6481": "65dfd29e80d9b28d",
      "preview 20261122T225309Z-e5b86c94": "42f19a1cb395deb5",
      "shipped 20261122T225303Z-fa0616eb bronze": "e59e1890606d4813",
      "shipped 20261122T225303Z-fa0616eb gold": "ada584c5a9084497",
      "shipped 20261122T225303Z-fa0616eb silver": "f4d0a1fd1bb148da",
      "shipped 20261122T225307Z-b5cc6481 bronze": "8ce583878242fc7c",
      "shipped 20261122T225307Z-b5cc6481 gold": "1f43ee8881391e05",
      "shipped 20261122T225307Z-b5cc6481 silver": "28263597943bfcc8",
      "shipped 20261122T225309Z-e5b86c94 bronze": "44e9ddc6a75767ad",
      "shipped 20261122T225309Z-e5b86c94 gold": "9d8cf761f26ed97e",
      "shipped 20261122T225309Z-e5b86c94 silver": "42bc8bc54c34479b",
    });
  });
});
