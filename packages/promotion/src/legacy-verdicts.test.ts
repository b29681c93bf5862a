// Verdicts and attestations of runs recorded as report v1, v2 and v3 are byte for byte what they were when
// promotion branched on the stored report's version: the digests below were taken from that code, and taken
// again once when verdicts became v3 (runs_excluded counted per reason), after checking that every digest with
// schema_version and runs_excluded left out was unchanged by that step. The records
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
      "demanding v1-run bronze": "de268108efdffdfd",
      "demanding v1-run gold": "01ee4ed1008fb238",
      "demanding v1-run silver": "33d1c516a119cd0c",
      "demanding v2-run bronze": "2fa6416147f71fdb",
      "demanding v2-run gold": "d381ad9b3baa5516",
      "demanding v2-run silver": "25c79c2e4c8a1faa",
      "demanding v3-one bronze": "24e0a309c0448d4e",
      "demanding v3-one gold": "552464553fb67533",
      "demanding v3-one silver": "b1a983f4becd09d9",
      "demanding v3-three bronze": "027a2fcf0fdb6fa2",
      "demanding v3-three gold": "192d6989924ae55a",
      "demanding v3-three silver": "a16857a66c7d02c7",
      "preview v1-run": "5a8cdec25736525c",
      "preview v2-run": "50b3a7e2f455f727",
      "preview v3-one": "e43202e45fa4c6eb",
      "preview v3-three": "e3788a850ebd530a",
      "shipped v1-run bronze": "de268108efdffdfd",
      "shipped v1-run gold": "be13b85022992b16",
      "shipped v1-run silver": "96835e532cd2ea8b",
      "shipped v2-run bronze": "2fa6416147f71fdb",
      "shipped v2-run gold": "ae9f37ff9b1468a8",
      "shipped v2-run silver": "7e1ff8b1408c16cb",
      "shipped v3-one bronze": "24e0a309c0448d4e",
      "shipped v3-one gold": "b06f96adc8eadca0",
      "shipped v3-one silver": "0d140e7b54dc03b3",
      "shipped v3-three bronze": "027a2fcf0fdb6fa2",
      "shipped v3-three gold": "e84a536198350a9d",
      "shipped v3-three silver": "c6dbb21bccc36bdb",
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
      "demanding 20261122T225303Z-fa0616eb bronze": "9db8b298a1e89644",
      "demanding 20261122T225303Z-fa0616eb gold": "0de3ebb62144f61d",
      "demanding 20261122T225303Z-fa0616eb silver": "b44e0dfcc0de1d73",
      "demanding 20261122T225307Z-b5cc6481 bronze": "6fec2132531cf02b",
      "demanding 20261122T225307Z-b5cc6481 gold": "93978a99d590f8c9",
      "demanding 20261122T225307Z-b5cc6481 silver": "f68bfb75e940a967",
      "demanding 20261122T225309Z-e5b86c94 bronze": "17f514983e1a411b",
      "demanding 20261122T225309Z-e5b86c94 gold": "00c09d7bf3388e66",
      "demanding 20261122T225309Z-e5b86c94 silver": "4a7dc86d687646ab",
      "preview 20261122T225303Z-fa0616eb": "8179f9e40a5c0100",
      "preview 20261122T225307Z-b5cc6481": "6216fb3a517fa4bb",
      "preview 20261122T225309Z-e5b86c94": "8a75b3327ca393c4",
      "shipped 20261122T225303Z-fa0616eb bronze": "9db8b298a1e89644",
      "shipped 20261122T225303Z-fa0616eb gold": "01c81794ea4960e1",
      "shipped 20261122T225303Z-fa0616eb silver": "dc80776aa785da13",
      "shipped 20261122T225307Z-b5cc6481 bronze": "6fec2132531cf02b",
      "shipped 20261122T225307Z-b5cc6481 gold": "4ca8725c8d223de9",
      "shipped 20261122T225307Z-b5cc6481 silver": "47694479f392ef5b",
      "shipped 20261122T225309Z-e5b86c94 bronze": "17f514983e1a411b",
      "shipped 20261122T225309Z-e5b86c94 gold": "cfacf953a0324bdb",
      "shipped 20261122T225309Z-e5b86c94 silver": "387317aa9f1f5ff4",
    });
  });
});
